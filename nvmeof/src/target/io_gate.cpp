#include "skiff/nvmeof/target/io_gate.hpp"

#include <cassert>

namespace skiff::nvmeof::target {
namespace {
thread_local int t_lane = 0;
}

void IoGate::set_thread_lane(int lane) {
    assert(lane >= 0 && lane < kMaxLanes);
    t_lane = lane % kMaxLanes;
}

int IoGate::thread_lane() {
    return t_lane;
}

bool IoGate::try_exclusive(const void *owner) {
    const void *expected = nullptr;
    if (!owner_.compare_exchange_strong(expected, owner, std::memory_order_seq_cst) && expected != owner)
        return false;
    // Claimed: no new I/O enters; wait (by being retried) for what is in flight on every lane.
    for (const Lane &l : lanes_)
        if (l.busy.load(std::memory_order_seq_cst)) return false;
    return true;
}

} // namespace skiff::nvmeof::target
