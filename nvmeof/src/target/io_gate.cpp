#include "skiff/nvmeof/target/io_gate.hpp"

#include <cassert>
#include <thread>

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

bool IoGate::enter_exclusive() {
    int mine = thread_lane();
    int expected = -1;
    if (!owner_.compare_exchange_strong(expected, mine, std::memory_order_seq_cst)) return false;
    for (int i = 0; i < kMaxLanes; ++i) {
        if (i == mine) continue;
        while (lanes_[i].busy.load(std::memory_order_seq_cst)) std::this_thread::yield();
    }
    return true;
}

} // namespace skiff::nvmeof::target
