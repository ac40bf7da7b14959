// Makes a fused Compare and Write atomic with respect to all other I/O on its namespace, even
// when that I/O runs on other poll groups. Nothing here waits or takes a lock. Each poll group
// (a "lane") counts its I/O in flight on the namespace, from submission until the backend
// completes it (asynchronous backends keep I/O in flight across loop iterations); ordinary I/O
// backs off (the request is deferred and retried) while a Compare and Write holds the gate. The
// Compare and Write claims the gate, then is retried the same way until every lane, its own
// included, has drained; it runs holding the gate and releases it when its write completes.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::nvmeof::target {

class IoGate {
  public:
    static constexpr int kMaxLanes = 64;

    // The calling thread's lane (a poll group index). Threads that never set one use lane 0.
    static void set_thread_lane(int lane);
    static int thread_lane();

    // Ordinary I/O: true when it may run now (call leave() on the same lane when it
    // completes); false while a Compare and Write holds the gate (defer and retry later).
    bool enter() {
        Lane &l = lanes_[thread_lane()];
        l.busy.fetch_add(1, std::memory_order_seq_cst);
        if (owner_.load(std::memory_order_seq_cst) == nullptr) return true;
        l.busy.fetch_sub(1, std::memory_order_release);
        return false;
    }
    void leave() { lanes_[thread_lane()].busy.fetch_sub(1, std::memory_order_release); }

    // Compare and Write: claims the gate for `owner` (or keeps the claim it already has) and
    // returns true once no lane has I/O in flight: the caller then runs holding the gate and
    // calls leave_exclusive(owner) when done. False means "not yet" (another owner holds the
    // gate, or I/O is still draining): defer and retry; the claim, if taken, is kept.
    bool try_exclusive(const void *owner);
    // Gives the gate up (also a claim that never ran, e.g. its queue went away).
    void leave_exclusive(const void *owner) {
        const void *expected = owner;
        owner_.compare_exchange_strong(expected, nullptr, std::memory_order_release);
    }
    bool held_by(const void *owner) const { return owner_.load(std::memory_order_acquire) == owner; }

  private:
    struct alignas(64) Lane {
        std::atomic<uint32_t> busy{0}; // I/O in flight on this lane
    };
    std::atomic<const void *> owner_{nullptr};
    Lane lanes_[kMaxLanes];
};

} // namespace skiff::nvmeof::target
