// Work of the DPA that waits for a sync event (a kernel launch with a wait event, an async-ops
// queue blocked on a post_wait). Waiters register here; every sync event update (through the sync
// module's update hook) retries them all. With nothing registered an update costs one atomic load.
#pragma once

#include <atomic>

namespace skiff::core::dpa {

struct EventWaiter {
    std::atomic<bool> registered{false};
    virtual ~EventWaiter() = default;
    // Called after an event update (on the updater's thread); re-registers if still blocked.
    virtual void retry() = 0;
};

// Registers the waiter (no-op when registered). Register before checking the condition, so an
// update between the check and the registration is not lost.
void add_waiter(EventWaiter *waiter);
// Removes the waiter and waits until no retry of it is in progress (before destroying it).
void remove_waiter(EventWaiter *waiter);
// Installs the sync-event update hook (idempotent).
void install_event_hook();

} // namespace skiff::core::dpa
