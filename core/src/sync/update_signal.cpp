#include "sync/update_signal.hpp"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace skiff::core {

namespace {

long futex(std::atomic<uint32_t> *word, int op, uint32_t value, const timespec *timeout) {
    static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
    return ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(word), op, value, timeout, nullptr, 0);
}

} // namespace

void UpdateSignal::wait(uint32_t seen, long timeout_us) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    if (seq_.load(std::memory_order_seq_cst) == seen) {
        timespec timeout{timeout_us / 1000000, (timeout_us % 1000000) * 1000};
        futex(&seq_, FUTEX_WAIT_PRIVATE, seen, &timeout);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
}

void UpdateSignal::publish() {
    seq_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) futex(&seq_, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

} // namespace skiff::core
