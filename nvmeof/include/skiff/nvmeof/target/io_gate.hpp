// Makes a fused Compare and Write atomic with respect to all other I/O on its namespace, even
// when that I/O runs on other poll groups. Ordinary I/O does not wait and takes no lock: each
// poll group (a "lane") raises its own busy flag around an I/O and backs off (the request is
// deferred and retried) while a Compare and Write holds the gate. The Compare and Write claims
// the gate, then waits for the other lanes' in-flight I/O to finish — which is quick, because
// backends run each I/O to completion on its lane's thread.
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

    // Ordinary I/O: true when it may run now (call leave() after); false while a Compare and
    // Write holds the gate (the caller defers the request and retries later).
    bool enter() {
        Lane &l = lanes_[thread_lane()];
        l.busy.store(1, std::memory_order_seq_cst);
        if (owner_.load(std::memory_order_seq_cst) < 0) return true;
        l.busy.store(0, std::memory_order_release);
        return false;
    }
    void leave() { lanes_[thread_lane()].busy.store(0, std::memory_order_release); }

    // Compare and Write: claims the gate and waits until no other lane has I/O in flight.
    // False when another Compare and Write holds it (defer and retry).
    bool enter_exclusive();
    void leave_exclusive() { owner_.store(-1, std::memory_order_release); }

  private:
    struct alignas(64) Lane {
        std::atomic<uint32_t> busy{0};
    };
    std::atomic<int> owner_{-1};
    Lane lanes_[kMaxLanes];
};

} // namespace skiff::nvmeof::target
