// Importer side of the shared-memory fast path: the exporter's file (shared_backing.hpp) mapped
// into this process, so an access is one memcpy.
//
// Revocation guarantee (see also README.md here). The export segment's revoked word and the
// exporter's liveness word are loaded before every copy and again after it:
//   - a copy that starts after the importer can see the revocation (or the death) never touches
//     the pages: it fails NOT_CONNECTED before the memcpy;
//   - a copy already under way when the exporter revokes may complete against the old pages (the
//     exporter's revocation is one store, there is no handshake, as with today's pread path and
//     with a real DMA engine in flight); it is reported NOT_CONNECTED by the second check, so its
//     data is never presented as good;
//   - the first access that sees the revocation fences the mapping: the range is replaced at once
//     (MAP_FIXED, atomic for this process) by private anonymous pages, so nothing in this process
//     can reach the exporter's pages afterwards. Anonymous rather than PROT_NONE so that a copy
//     racing on another thread lands in scratch memory instead of crashing the process.
#pragma once

#include <skiff/core/status.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <sys/types.h>

namespace skiff::core::mem {

struct SharedFileRef {
    int fd = -1; // in the exporter
    uint64_t offset = 0;
    uint64_t dev = 0, ino = 0;
};

class SharedMapping {
  public:
    // Maps [file.offset, + len) of the exporter's file; remote_addr is where the range starts in
    // the exporter. INVALID_VALUE when the fd is not that file or the file is shorter than the
    // range; NOT_CONNECTED / NOT_PERMITTED when it cannot be opened.
    static Result<std::unique_ptr<SharedMapping>> map(pid_t exporter, const SharedFileRef &file,
                                                      uint64_t remote_addr, uint64_t len, bool writable);
    // The same from a descriptor of the file held here (received over comch, already checked with
    // check_shared_file); `whose` names the exporter in errors. The caller keeps fd.
    static Result<std::unique_ptr<SharedMapping>> map_fd(int fd, const SharedFileRef &file,
                                                         uint64_t remote_addr, uint64_t len, bool writable,
                                                         const std::string &whose);
    ~SharedMapping();
    SharedMapping(const SharedMapping &) = delete;
    SharedMapping &operator=(const SharedMapping &) = delete;

    // The local address of remote_addr (inside the range; the caller checked it).
    uint8_t *local(uint64_t remote_addr) const { return base_ + (remote_addr - remote_base_); }
    // Replaces the mapping by anonymous pages (idempotent, thread-safe).
    void fence();
    bool fenced() const { return fenced_.load(std::memory_order_acquire); }

  private:
    SharedMapping() = default;
    void *map_ = nullptr; // the whole mapping (page-aligned)
    size_t map_len_ = 0;
    uint8_t *base_ = nullptr; // remote_base_ mapped here
    uint64_t remote_base_ = 0;
    std::atomic<bool> fenced_{false};
};

} // namespace skiff::core::mem
