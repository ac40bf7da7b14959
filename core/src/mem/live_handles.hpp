// The memory objects (mmaps, inventories, pools, arrays) alive in this process, so that a second
// destroy of the same handle is reported (INVALID_VALUE) instead of freeing twice (spec 5.1 rule 4).
// Touched only at create and destroy, never on the data path.
#pragma once

#include <mutex>
#include <unordered_set>

namespace skiff::core::mem {

class LiveHandles {
  public:
    void add(const void *handle) {
        std::lock_guard lock(mutex_);
        handles_.insert(handle);
    }
    bool contains(const void *handle) {
        std::lock_guard lock(mutex_);
        return handles_.count(handle) != 0;
    }
    void remove(const void *handle) {
        std::lock_guard lock(mutex_);
        handles_.erase(handle);
    }

  private:
    std::mutex mutex_;
    std::unordered_set<const void *> handles_;
};

LiveHandles &live_handles();

// DOCA_SUCCESS when handle is alive; otherwise logs that `what` got a destroyed or foreign handle.
doca_error_t check_live(const void *handle, const char *what);

} // namespace skiff::core::mem
