#include "mem/exporter_liveness.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <new>
#include <poll.h>
#include <pthread.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace skiff::core::mem {

namespace {

constexpr uint64_t liveness_magic = 0x534b49464c495645ull; // "SKIFLIVE"
constexpr size_t page_size = 4096;

struct LivenessPage {
    uint64_t magic;
    int32_t pid;           // the exporter process (tgid)
    pthread_mutex_t mutex; // robust, process-shared; locked by the exporting thread forever
};
static_assert(sizeof(LivenessPage) <= page_size);

// The kernel's robust-futex protocol owns the first word of glibc's mutex (__data.__lock): the
// owner's TID, plus FUTEX_OWNER_DIED once the owner exited without unlocking.
const uint32_t *lock_word(const pthread_mutex_t *m) {
    return reinterpret_cast<const uint32_t *>(&m->__data.__lock);
}

struct ThreadPage {
    pid_t pid = 0; // the process that created it (a forked child must make its own)
    int fd = -1;
};
thread_local ThreadPage this_thread_page;

Result<int> create_page() {
    int fd = memfd_create("skiff-exporter-liveness", MFD_CLOEXEC);
    if (fd < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          std::string("memfd_create for the exporter liveness page failed: ") +
                              std::strerror(errno));
    void *p = MAP_FAILED;
    if (ftruncate(fd, page_size) == 0)
        p = ::mmap(nullptr, page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        std::string why = std::strerror(errno);
        close(fd);
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "sizing or mapping the exporter liveness page failed: " + why);
    }
    auto *page = new (p) LivenessPage{};
    page->magic = liveness_magic;
    page->pid = getpid();
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&page->mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_mutex_lock(&page->mutex); // never unlocked: the kernel marks it when this thread exits
    return fd;
}

} // namespace

Result<int> exporter_liveness_fd() {
    ThreadPage &t = this_thread_page;
    if (t.fd >= 0 && t.pid == getpid()) return t.fd;
    auto fd = create_page();
    if (!fd) return fd.error();
    t.pid = getpid();
    t.fd = fd.value();
    return t.fd;
}

Result<std::unique_ptr<LivenessView>> LivenessView::attach(pid_t exporter, int fd) {
    std::string path = "/proc/" + std::to_string(exporter) + "/fd/" + std::to_string(fd);
    auto gone = [&](const std::string &why) {
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") or its liveness page is gone: " + path + ": " +
                                                        why);
    };
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, exporter, 0));
    if (pidfd < 0) return gone(std::string("pidfd_open: ") + std::strerror(errno));
    int local = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (local < 0 || fstat(local, &st) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<size_t>(st.st_size) < page_size) {
        std::string why = local < 0 ? std::strerror(errno) : "not a liveness page";
        if (local >= 0) close(local);
        close(pidfd);
        return gone(why);
    }
    void *p = ::mmap(nullptr, page_size, PROT_READ, MAP_SHARED, local, 0);
    close(local);
    if (p == MAP_FAILED) {
        close(pidfd);
        return gone(std::string("mmap: ") + std::strerror(errno));
    }
    auto *page = static_cast<const LivenessPage *>(p);
    if (page->magic != liveness_magic || page->pid != exporter) {
        ::munmap(p, page_size);
        close(pidfd);
        return gone("not a liveness page of this exporter");
    }
    std::unique_ptr<LivenessView> v(new LivenessView());
    v->page_ = p;
    v->word_ = lock_word(&page->mutex);
    v->pidfd_ = pidfd;
    v->pid_ = exporter;
    return v;
}

LivenessView::~LivenessView() {
    if (page_ != nullptr) ::munmap(page_, page_size);
    if (pidfd_ >= 0) close(pidfd_);
}

bool LivenessView::alive() const {
    uint32_t w = __atomic_load_n(word_, __ATOMIC_ACQUIRE);
    if ((w & FUTEX_TID_MASK) != 0 && (w & FUTEX_OWNER_DIED) == 0) return true;
    return confirm_alive();
}

bool LivenessView::confirm_alive() const {
    if (dead_.load(std::memory_order_acquire)) return false;
    // A pidfd turns readable when the process exits (and stays so).
    pollfd p{pidfd_, POLLIN, 0};
    int n = poll(&p, 1, 0);
    if (n != 0) {
        dead_.store(true, std::memory_order_release);
        return false;
    }
    if (!warned_.exchange(true))
        skiff::log::get("mem")->info(
            "import from pid {}: the thread that exported ended but the process lives; "
            "checking the exporter with a system call per access from now on",
            pid_);
    return true;
}

} // namespace skiff::core::mem
