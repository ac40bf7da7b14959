// How an importer reaches the exporter's pages: an fd on /proc/<exporter>/mem, opened once at
// import. The fd is bound to the exporter's address space, not to its pid: once the exporter
// exits, reads and writes return 0 bytes (never another process's memory, even if the pid is
// reused). One pread/pwrite per access: the emulated PCI transfer itself.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <sys/types.h>

namespace skiff::core::mem {

class RemoteMemory {
  public:
    // NOT_CONNECTED when the exporter is gone; NOT_PERMITTED without ptrace access to it.
    static Result<std::unique_ptr<RemoteMemory>> open(pid_t exporter, bool writable);
    ~RemoteMemory();
    RemoteMemory(const RemoteMemory &) = delete;
    RemoteMemory &operator=(const RemoteMemory &) = delete;

    // DOCA_SUCCESS, or DOCA_ERROR_NOT_CONNECTED when the exporter's pages cannot be reached.
    doca_error_t read(uint64_t remote_addr, void *dst, size_t len) const;
    doca_error_t write(uint64_t remote_addr, const void *src, size_t len) const;

    pid_t exporter() const { return pid_; }

  private:
    RemoteMemory() = default;
    int fd_ = -1;
    pid_t pid_ = 0;
};

} // namespace skiff::core::mem
