#include "sync/update_signal.hpp"

#include "exec/futex.hpp"

namespace skiff::core {

void UpdateSignal::wait(uint32_t seen, long timeout_us) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    if (seq_.load(std::memory_order_seq_cst) == seen) futex_wait(seq_, seen, timeout_us);
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
}

void UpdateSignal::publish() {
    seq_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) futex_wake_all(seq_);
}

} // namespace skiff::core
