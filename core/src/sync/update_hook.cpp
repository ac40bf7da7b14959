#include "sync/update_hook.hpp"

#include <atomic>

namespace skiff::core {
namespace {

std::atomic<SyncEventUpdateHook> g_hook{nullptr};

} // namespace

void set_sync_event_update_hook(SyncEventUpdateHook hook) {
    g_hook.store(hook, std::memory_order_release);
}

void run_sync_event_update_hook() {
    if (SyncEventUpdateHook hook = g_hook.load(std::memory_order_acquire)) hook();
}

} // namespace skiff::core
