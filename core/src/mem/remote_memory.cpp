#include "mem/remote_memory.hpp"

#include <skiff/core/log.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace skiff::core::mem {

Result<std::unique_ptr<RemoteMemory>> RemoteMemory::open(pid_t exporter, bool writable) {
    std::string path = "/proc/" + std::to_string(exporter) + "/mem";
    int fd = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        if (err == EACCES || err == EPERM)
            return make_error(DOCA_ERROR_NOT_PERMITTED,
                              "cannot reach the exporter's memory (" + path + ": " + std::strerror(err) +
                                  "); the importer needs ptrace access to the exporter (same user, or "
                                  "CAP_SYS_PTRACE)");
        return make_error(DOCA_ERROR_NOT_CONNECTED, "the exporter (pid " + std::to_string(exporter) +
                                                        ") is gone: " + std::strerror(err));
    }
    std::unique_ptr<RemoteMemory> r(new RemoteMemory());
    r->fd_ = fd;
    r->pid_ = exporter;
    return r;
}

RemoteMemory::~RemoteMemory() {
    if (fd_ >= 0) ::close(fd_);
}

doca_error_t RemoteMemory::read(uint64_t remote_addr, void *dst, size_t len) const {
    auto *out = static_cast<uint8_t *>(dst);
    while (len > 0) {
        ssize_t n = ::pread(fd_, out, len, static_cast<off_t>(remote_addr));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            // 0: the exporter's address space is gone; EIO/EFAULT: its pages are no longer mapped.
            skiff::log::get("mem")->warn(
                "import from pid {}: read of {} bytes at {:#x} failed ({}); treating the "
                "exporter as disconnected",
                pid_, len, remote_addr, n == 0 ? "exporter exited" : std::strerror(errno));
            return DOCA_ERROR_NOT_CONNECTED;
        }
        out += n;
        remote_addr += static_cast<uint64_t>(n);
        len -= static_cast<size_t>(n);
    }
    return DOCA_SUCCESS;
}

doca_error_t RemoteMemory::write(uint64_t remote_addr, const void *src, size_t len) const {
    auto *in = static_cast<const uint8_t *>(src);
    while (len > 0) {
        ssize_t n = ::pwrite(fd_, in, len, static_cast<off_t>(remote_addr));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            skiff::log::get("mem")->warn(
                "import from pid {}: write of {} bytes at {:#x} failed ({}); treating the "
                "exporter as disconnected",
                pid_, len, remote_addr, n == 0 ? "exporter exited" : std::strerror(errno));
            return DOCA_ERROR_NOT_CONNECTED;
        }
        in += n;
        remote_addr += static_cast<uint64_t>(n);
        len -= static_cast<size_t>(n);
    }
    return DOCA_SUCCESS;
}

} // namespace skiff::core::mem
