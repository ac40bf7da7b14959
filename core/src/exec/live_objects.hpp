// The progress engines and contexts alive in this process, so that a second destroy of the same
// handle is refused (INVALID_VALUE) instead of freeing twice (spec 5.1 rule 4). Touched only at
// create and destroy, never on the data path.
#pragma once

#include <mutex>
#include <unordered_set>

namespace skiff::core {

class LiveObjects {
  public:
    void add(const void *object) {
        std::lock_guard lock(mutex_);
        objects_.insert(object);
    }
    // Removes the object; false when it was not alive (destroyed already, or never created).
    bool remove(const void *object) {
        std::lock_guard lock(mutex_);
        return objects_.erase(object) != 0;
    }

  private:
    std::mutex mutex_;
    std::unordered_set<const void *> objects_;
};

// The one registry of execution objects (PEs, DMA contexts, sync events).
LiveObjects &live_exec_objects();

} // namespace skiff::core
