// The PDUs a queue has to send, gathered so that one sendmsg carries them all: a poll's worth of
// command capsules, or the H2CData answers to the R2Ts one receive brought. Headers are built in
// the batch's own arena (stable until the batch is sent); data is referenced in place.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/host/tcp_socket.hpp"

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::host {

class TxBatch {
  public:
    static constexpr int kMaxIov = 256;
    static constexpr uint32_t kArenaBytes = 16384;

    // True when a PDU needing `bytes` of arena and up to `iovs` iovecs still fits.
    bool fits(uint32_t bytes, int iovs) const {
        return used_ + bytes <= kArenaBytes && iov_count_ + iovs <= kMaxIov;
    }
    // `bytes` of zeroed arena, valid until the batch is sent. Call fits() first. Consecutive
    // headers are adjacent, so a batch of read capsules goes out as one iovec.
    uint8_t *alloc(uint32_t bytes);
    // Appends bytes to send; joined with the previous piece when they are adjacent in memory.
    void add(const void *data, size_t len);

    bool empty() const { return iov_count_ == 0; }
    size_t bytes() const { return bytes_; }
    // Sends everything (one sendmsg unless the socket takes only part of it), then empties.
    Status send(TcpSocket &sock, Deadline deadline);
    uint64_t sends() const { return sends_; }

  private:
    iovec iov_[kMaxIov];
    int iov_count_ = 0;
    size_t bytes_ = 0;
    uint64_t sends_ = 0;
    uint32_t used_ = 0;
    alignas(64) uint8_t arena_[kArenaBytes];
};

} // namespace skiff::nvmeof::host
