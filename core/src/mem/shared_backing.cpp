#include "mem/shared_backing.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace skiff::core::mem {

namespace {

auto logger() {
    return skiff::log::get("mem");
}

// One line of /proc/self/maps.
struct MapsLine {
    uint64_t start = 0, end = 0, offset = 0, ino = 0;
    unsigned major = 0, minor = 0;
    bool shared = false;
    std::string path;
};

bool parse_line(const char *line, MapsLine &m) {
    char perms[5] = {};
    int path_at = 0;
    if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &m.start, &m.end,
                    perms, &m.offset, &m.major, &m.minor, &m.ino, &path_at) < 7)
        return false;
    m.shared = perms[3] == 's';
    m.path = line + path_at;
    while (!m.path.empty() && (m.path.back() == '\n' || m.path.back() == ' ')) m.path.pop_back();
    return true;
}

// The mapping(s) covering [addr, addr + len): one file, shared, at contiguous offsets. Returns the
// first line (its offset adjusted to addr) or false.
bool find_file_range(uint64_t addr, uint64_t len, MapsLine &out) {
    FILE *f = std::fopen("/proc/self/maps", "re");
    if (f == nullptr) return false;
    char line[4096 + 128];
    bool found = false;
    uint64_t next = 0, next_offset = 0;
    MapsLine m;
    while (std::fgets(line, sizeof(line), f) != nullptr) {
        if (!parse_line(line, m)) continue;
        if (!found) {
            if (addr < m.start || addr >= m.end) continue;
            if (!m.shared || m.ino == 0) break;
            out = m;
            out.offset = m.offset + (addr - m.start);
            found = true;
        } else if (m.start != next || m.ino != out.ino || m.major != out.major || m.minor != out.minor ||
                   !m.shared || m.offset != next_offset) {
            found = false; // a hole or another file before the end of the range
            break;
        }
        next = m.end;
        next_offset = m.offset + (m.end - m.start);
        if (next >= addr + len) break;
    }
    std::fclose(f);
    return found && next >= addr + len;
}

bool same_file(int fd, const MapsLine &m) {
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == m.ino && major(st.st_dev) == m.major &&
           minor(st.st_dev) == m.minor;
}

// Whether fd may be handed to an importer of an export with this access: an importer that gets
// the descriptor itself (comch_trust.hpp) can map it only as it is open.
bool open_for(int fd, bool writable) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_PATH) != 0) return false;
    int mode = flags & O_ACCMODE;
    return writable ? mode == O_RDWR : mode != O_WRONLY;
}

// An fd of this process on the file, open for reading (and writing when `writable`): its path when
// it still has one, else an fd the application holds (a memfd), else /proc/self/map_files (needs
// CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN).
int open_file(const MapsLine &m, bool writable) {
    const int mode = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
    const std::string deleted = " (deleted)";
    bool has_path = !m.path.empty() && m.path[0] == '/' &&
                    (m.path.size() < deleted.size() ||
                     m.path.compare(m.path.size() - deleted.size(), deleted.size(), deleted) != 0);
    if (has_path) {
        int fd = open(m.path.c_str(), mode);
        if (fd >= 0 && same_file(fd, m)) return fd;
        if (fd >= 0) close(fd);
    }
    if (DIR *d = opendir("/proc/self/fd")) {
        int found = -1;
        while (dirent *e = readdir(d)) {
            int n = std::atoi(e->d_name);
            if (e->d_name[0] < '0' || e->d_name[0] > '9' || n == dirfd(d)) continue;
            if (same_file(n, m) && open_for(n, writable)) {
                found = fcntl(n, F_DUPFD_CLOEXEC, 0);
                break;
            }
        }
        closedir(d);
        if (found >= 0) return found;
    }
    char path[96];
    std::snprintf(path, sizeof(path), "/proc/self/map_files/%" PRIx64 "-%" PRIx64, m.start, m.end);
    int fd = open(path, mode);
    if (fd >= 0 && same_file(fd, m)) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

} // namespace

std::unique_ptr<SharedBacking> SharedBacking::find(const void *addr, size_t len, bool writable) {
    auto a = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addr));
    MapsLine m;
    if (!find_file_range(a, len, m)) {
        logger()->debug(
            "export [{:#x}, +{}) is private memory: the importer reaches it through /proc/<pid>/mem", a, len);
        return nullptr;
    }
    int fd = open_file(m, writable);
    if (fd < 0) {
        logger()->info(
            "export [{:#x}, +{}) lies in shared memory ({}) but this process holds no fd on it and "
            "cannot open /proc/self/map_files; the importer uses /proc/<pid>/mem (keep the fd "
            "open to get the shared-memory path)",
            a, len, m.path);
        return nullptr;
    }
    std::unique_ptr<SharedBacking> b(new SharedBacking());
    b->fd_ = fd;
    b->offset_ = m.offset;
    b->dev_ = makedev(m.major, m.minor);
    b->ino_ = m.ino;
    logger()->debug("export [{:#x}, +{}) is shared memory: {} at offset {} (fd {})", a, len, m.path, m.offset,
                    fd);
    return b;
}

SharedBacking::~SharedBacking() {
    if (fd_ >= 0) close(fd_);
}

} // namespace skiff::core::mem
