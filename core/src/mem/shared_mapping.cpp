#include "mem/shared_mapping.hpp"

#include "mem/import_trust.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace skiff::core::mem {

Result<std::unique_ptr<SharedMapping>> SharedMapping::map(pid_t exporter, const SharedFileRef &file,
                                                          uint64_t remote_addr, uint64_t len, bool writable) {
    std::string path = "/proc/" + std::to_string(exporter) + "/fd/" + std::to_string(file.fd);
    int fd = open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        return make_error(err == EACCES || err == EPERM ? DOCA_ERROR_NOT_PERMITTED : DOCA_ERROR_NOT_CONNECTED,
                          "cannot open the exporter's shared memory " + path + ": " + std::strerror(err));
    }
    // Reached through /proc only when the exporter runs as this process's user (mmap_export.cpp):
    // the file must still be its memory, not any file it holds a descriptor on.
    Status usable = check_shared_file(fd, geteuid(), writable, false);
    auto m = usable ? map_fd(fd, file, remote_addr, len, writable, "pid " + std::to_string(exporter))
                    : Result<std::unique_ptr<SharedMapping>>(usable.error());
    close(fd); // the mapping holds the file
    return m;
}

Result<std::unique_ptr<SharedMapping>> SharedMapping::map_fd(int fd, const SharedFileRef &file,
                                                             uint64_t remote_addr, uint64_t len,
                                                             bool writable, const std::string &whose) {
    const std::string path = "the shared memory of " + whose;
    struct stat st {};
    struct statfs fs {};
    if (fstat(fd, &st) != 0 || fstatfs(fd, &fs) != 0 || !S_ISREG(st.st_mode) ||
        static_cast<uint64_t>(st.st_dev) != file.dev || static_cast<uint64_t>(st.st_ino) != file.ino) {
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "export descriptor names fd " + std::to_string(file.fd) + " of " + whose +
                              ", which is not the file of the export (expected inode " +
                              std::to_string(file.ino) + ")");
    }
    if (file.offset > static_cast<uint64_t>(st.st_size) ||
        len > static_cast<uint64_t>(st.st_size) - file.offset) {
        return make_error(DOCA_ERROR_INVALID_VALUE, "export descriptor range [" +
                                                        std::to_string(file.offset) + ", +" +
                                                        std::to_string(len) + ") lies outside its file (" +
                                                        std::to_string(st.st_size) + " bytes)");
    }
    // hugetlbfs maps only in whole huge pages: align to its block size.
    uint64_t align = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    if (fs.f_type == HUGETLBFS_MAGIC) align = static_cast<uint64_t>(fs.f_bsize);
    uint64_t start = file.offset & ~(align - 1);
    uint64_t map_len = ((file.offset + len - start) + align - 1) & ~(align - 1);
    // Memory-backed exports (memfd, hugetlbfs) are mapped populated: an exported region is pinned
    // on real hardware, and a page fault on the first DMA to each page would cost the data path a
    // kernel entry. A regular file is left to fault in (populating would read all of it now).
    bool in_memory = fs.f_type == HUGETLBFS_MAGIC || fs.f_type == TMPFS_MAGIC;
    void *p = ::mmap(nullptr, map_len, PROT_READ | (writable ? PROT_WRITE : 0),
                     MAP_SHARED | (in_memory ? MAP_POPULATE : 0), fd, static_cast<off_t>(start));
    int err = errno;
    if (p == MAP_FAILED)
        return make_error(DOCA_ERROR_NOT_CONNECTED,
                          "cannot map the exporter's shared memory " + path + ": " + std::strerror(err));
    std::unique_ptr<SharedMapping> m(new SharedMapping());
    m->map_ = p;
    m->map_len_ = map_len;
    m->base_ = static_cast<uint8_t *>(p) + (file.offset - start);
    m->remote_base_ = remote_addr;
    return m;
}

void SharedMapping::fence() {
    if (fenced_.exchange(true, std::memory_order_acq_rel)) return;
    void *p = ::mmap(map_, map_len_, PROT_READ | PROT_WRITE,
                     MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        // Cannot happen short of running out of mappings; unmapping still cuts the link (a racing
        // copy on another thread would then fault, which beats reaching revoked pages).
        skiff::log::get("mem")->error("fencing an import: {}; unmapping instead", std::strerror(errno));
        ::munmap(map_, map_len_);
        map_ = nullptr;
    }
}

SharedMapping::~SharedMapping() {
    if (map_ != nullptr) ::munmap(map_, map_len_);
}

} // namespace skiff::core::mem
