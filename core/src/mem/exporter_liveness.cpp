#include "mem/exporter_liveness.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/futex.h>
#include <new>
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
    int32_t robust;        // 1: the mutex below is locked and the kernel will mark its owner's death
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

// Whether the kernel walks this thread's robust-futex list when it exits. Not under qemu-user,
// which refuses set_robust_list (ENOSYS): a guest's list lives in guest memory the host kernel
// cannot walk, so the lock word would name a dead owner forever.
bool robust_list_registered() {
    void *head = nullptr;
    size_t len = 0;
    return syscall(SYS_get_robust_list, 0, &head, &len) == 0 && head != nullptr;
}

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
    // Without a robust list the word stays 0 (no owner) and importers ask /proc on every access:
    // correct, slower, and only where the kernel cannot help (emulators).
    if (robust_list_registered() && pthread_mutex_init(&page->mutex, &attr) == 0 &&
        pthread_mutex_lock(&page->mutex) == 0) // never unlocked: the kernel marks it at thread exit
        page->robust = 1;
    pthread_mutexattr_destroy(&attr);
    return fd;
}

// False once the process behind its /proc directory fd is a zombie or gone.
bool process_alive(int proc_dir) {
    int fd = openat(proc_dir, "stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    // "pid (comm) S ...": the state follows the last ')' (comm may hold parentheses).
    const char *paren = std::strrchr(buf, ')');
    if (paren == nullptr || paren[1] == '\0' || paren[2] == '\0') return false;
    char state = paren[2];
    return state != 'Z' && state != 'X' && state != 'x';
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
    // The exporter's /proc directory, bound to that process: once it is reaped, lookups in it fail
    // even if the pid is reused. (A pidfd would do too, but valgrind does not know pidfd_open.)
    std::string dir = "/proc/" + std::to_string(exporter);
    int proc_dir = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc_dir < 0)
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") is gone: " + dir + ": " + std::strerror(errno));
    int local = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (local < 0) {
        std::string why = std::strerror(errno);
        close(proc_dir);
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") or its liveness page is gone: " + path + ": " +
                                                        why);
    }
    auto view = attach_fd(local, exporter, proc_dir);
    close(local);
    if (!view) close(proc_dir);
    return view;
}

Result<std::unique_ptr<LivenessView>> LivenessView::attach_fd(int fd, pid_t exporter, int proc_dir) {
    auto gone = [&](const std::string &why) {
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") or its liveness page is gone: " + why);
    };
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<size_t>(st.st_size) < page_size)
        return gone("not a liveness page");
    void *p = ::mmap(nullptr, page_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return gone(std::string("mmap: ") + std::strerror(errno));
    auto *page = static_cast<const LivenessPage *>(p);
    if (page->magic != liveness_magic || page->pid != exporter) {
        ::munmap(p, page_size);
        return gone("not a liveness page of this exporter");
    }
    std::unique_ptr<LivenessView> v(new LivenessView());
    v->page_ = p;
    v->word_ = lock_word(&page->mutex);
    v->proc_dir_ = proc_dir;
    v->pid_ = exporter;
    v->robust_ = page->robust == 1;
    return v;
}

LivenessView::~LivenessView() {
    if (page_ != nullptr) ::munmap(page_, page_size);
    if (proc_dir_ >= 0) close(proc_dir_);
}

bool LivenessView::confirm_alive() const {
    if (dead_.load(std::memory_order_acquire)) return false;
    if (!process_alive(proc_dir_)) {
        dead_.store(true, std::memory_order_release);
        return false;
    }
    if (!warned_.exchange(true))
        skiff::log::get("mem")->info("import from pid {}: {}; checking the exporter with a system call per "
                                     "access from now on",
                                     pid_,
                                     robust_ ? "the thread that exported ended but the process lives"
                                             : "the exporter has no robust futex list (an emulator?)");
    return true;
}

} // namespace skiff::core::mem
