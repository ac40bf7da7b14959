#include "exec/futex.hpp"

#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace skiff::core {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

void futex_wait(std::atomic<uint32_t> &word, uint32_t expected, long timeout_us) {
    timespec timeout{timeout_us / 1000000, (timeout_us % 1000000) * 1000};
    ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE, expected,
              timeout_us < 0 ? nullptr : &timeout, nullptr, 0);
}

void futex_wake_all(std::atomic<uint32_t> &word) {
    ::syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr,
              0);
}

} // namespace skiff::core
