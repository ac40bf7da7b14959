// Lets CPU waiters of a sync event sleep instead of spinning: every update bumps a 32-bit
// sequence word and wakes futex sleepers; the wake syscall happens only when someone sleeps.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::core {

class UpdateSignal {
  public:
    uint32_t sequence() const { return seq_.load(std::memory_order_acquire); }
    // Sleeps while the sequence still equals `seen`, at most timeout_us microseconds (updates that
    // bypass the API, e.g. a DPA writing the counter directly, are caught by the timeout).
    void wait(uint32_t seen, long timeout_us);
    // Called after every update of the counter.
    void publish();

  private:
    std::atomic<uint32_t> seq_{0};
    std::atomic<uint32_t> sleepers_{0};
};

} // namespace skiff::core
