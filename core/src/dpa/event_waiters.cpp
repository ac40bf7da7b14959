// The process-wide list of DPA work blocked on sync events, and the hook that retries it.
#include "dpa/event_waiters.hpp"

#include "sync/update_hook.hpp"

#include <algorithm>
#include <mutex>
#include <sched.h>
#include <vector>

namespace skiff::core::dpa {
namespace {

struct Registry {
    std::mutex mu;
    std::vector<EventWaiter *> waiters;
    std::atomic<size_t> count{0};
    std::atomic<int> retrying{0};
};

Registry &registry() {
    static Registry *r = [] {
        auto *reg = new Registry();
        reg->waiters.reserve(1024);
        return reg;
    }();
    return *r;
}

void retry_all() {
    Registry &r = registry();
    // The event was updated (a release store or RMW) just before; a waiter registers and then
    // reads the event. Fences on both sides (here and in add_waiter) make one see the other.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (r.count.load(std::memory_order_seq_cst) == 0) return;
    r.retrying.fetch_add(1, std::memory_order_seq_cst);
    std::vector<EventWaiter *> batch;
    {
        std::lock_guard lock(r.mu);
        batch.swap(r.waiters);
        r.waiters.reserve(std::max<size_t>(batch.capacity(), 1024));
        r.count.store(0, std::memory_order_seq_cst);
    }
    for (EventWaiter *w : batch) {
        w->registered.store(false, std::memory_order_seq_cst);
        w->retry();
    }
    r.retrying.fetch_sub(1, std::memory_order_seq_cst);
}

} // namespace

void add_waiter(EventWaiter *waiter) {
    if (!waiter->registered.exchange(true, std::memory_order_seq_cst)) {
        Registry &r = registry();
        std::lock_guard lock(r.mu);
        r.waiters.push_back(waiter);
        r.count.store(r.waiters.size(), std::memory_order_seq_cst);
    }
    // The caller reads the event next (acquire): keep that after the registration (retry_all).
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

void remove_waiter(EventWaiter *waiter) {
    Registry &r = registry();
    {
        std::lock_guard lock(r.mu);
        r.waiters.erase(std::remove(r.waiters.begin(), r.waiters.end(), waiter), r.waiters.end());
        r.count.store(r.waiters.size(), std::memory_order_seq_cst);
    }
    while (r.retrying.load(std::memory_order_seq_cst) != 0) sched_yield();
}

void install_event_hook() {
    skiff::core::set_sync_event_update_hook(&retry_all);
}

} // namespace skiff::core::dpa
