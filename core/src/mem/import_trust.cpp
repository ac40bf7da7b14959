#include "mem/import_trust.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <linux/magic.h>
#include <string>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

namespace skiff::core::mem {

Result<uid_t> process_uid(int proc_dir) {
    int fd = openat(proc_dir, "status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return make_error(DOCA_ERROR_NOT_CONNECTED, std::string("the exporter is gone (its /proc status: ") +
                                                        std::strerror(errno) + ")");
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter is gone (its /proc status is empty)");
    buf[n] = '\0';
    const char *line = std::strstr(buf, "\nUid:");
    unsigned long real = 0, effective = 0, saved = 0, fs = 0;
    if (line == nullptr || std::sscanf(line, "\nUid: %lu %lu %lu %lu", &real, &effective, &saved, &fs) != 4)
        return make_error(DOCA_ERROR_NOT_CONNECTED, "cannot read the exporter's uid from /proc");
    if (real != effective || effective != saved || saved != fs)
        return make_error(DOCA_ERROR_NOT_PERMITTED,
                          "the exporter runs with mixed uids (real " + std::to_string(real) + ", effective " +
                              std::to_string(effective) + ", saved " + std::to_string(saved) + ", fs " +
                              std::to_string(fs) + ")");
    return static_cast<uid_t>(effective);
}

Status check_shared_file(int fd, uid_t owner, bool writable, bool check_mode) {
    struct stat st {};
    struct statfs fs {};
    if (check_mode) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || (flags & O_PATH) != 0)
            return make_error(DOCA_ERROR_NOT_PERMITTED,
                              "the exporter's shared-memory descriptor is not open for I/O (O_PATH)");
        int mode = flags & O_ACCMODE;
        if (mode == O_WRONLY || (writable && mode != O_RDWR))
            return make_error(DOCA_ERROR_NOT_PERMITTED,
                              std::string("the exporter's shared-memory descriptor is open ") +
                                  (mode == O_WRONLY ? "write-only" : "read-only") +
                                  " but the export grants " + (writable ? "read-write" : "read") + " access");
    }
    if (fstat(fd, &st) != 0 || fstatfs(fd, &fs) != 0)
        return make_error(DOCA_ERROR_NOT_PERMITTED,
                          std::string("cannot inspect the exporter's shared memory: ") +
                              std::strerror(errno));
    bool memfd = fs.f_type == TMPFS_MAGIC && st.st_nlink == 0;
    bool hugetlbfs = fs.f_type == HUGETLBFS_MAGIC;
    if (!S_ISREG(st.st_mode) || (!memfd && !hugetlbfs))
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "the exporter's shared memory is not a memfd or a hugetlbfs file (inode " +
                              std::to_string(st.st_ino) + "); only those are mapped");
    if (st.st_uid != owner)
        return make_error(DOCA_ERROR_NOT_PERMITTED,
                          "the exporter's shared memory (inode " + std::to_string(st.st_ino) +
                              ") belongs to uid " + std::to_string(st.st_uid) +
                              ", not to the exporter (uid " + std::to_string(owner) + ")");
    return Status::success();
}

} // namespace skiff::core::mem
