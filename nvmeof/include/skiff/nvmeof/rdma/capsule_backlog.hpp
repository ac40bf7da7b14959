// Command capsules that arrived while every request slot of an NVMe/RDMA queue pair was still
// waiting for its response SEND to complete: a FIFO of (receive index, received byte count),
// started in arrival order as slots free up. Pure: unit-tested and fuzzed without RDMA.
//
// The byte count is kept whole. A capsule is the 64-byte SQE plus up to in_capsule_data_size
// bytes (1 MiB at most), and plan_sgl trusts `byte_len - 64` as the bytes that really follow the
// SQE: a count cut to 16 bits would wrap on replay and let an in-capsule SGL point anywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skiff::nvmeof::rdma {

class CapsuleBacklog {
  public:
    struct Capsule {
        uint16_t recv = 0;     // the receive buffer holding it
        uint32_t byte_len = 0; // what the receive completion reported
    };

    // Allocates once, for `capacity` capsules (the queue's depth); push and pop never allocate.
    explicit CapsuleBacklog(size_t capacity = 0) : ring_(capacity) {}

    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    bool full() const { return count_ == ring_.size(); }

    // Callers check full() first: a full backlog means the host exceeded its queue size.
    void push(Capsule c) {
        ring_[(head_ + count_) % ring_.size()] = c;
        ++count_;
    }
    Capsule pop() {
        Capsule c = ring_[head_];
        head_ = (head_ + 1) % ring_.size();
        --count_;
        return c;
    }

  private:
    std::vector<Capsule> ring_;
    size_t head_ = 0, count_ = 0;
};

} // namespace skiff::nvmeof::rdma
