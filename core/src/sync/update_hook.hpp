// One process-wide function called after every sync event update, from the updating thread. The
// DPA module installs it to retry kernel launches and async-ops waits blocked on an event; the sync
// module does not depend on the DPA.
#pragma once

namespace skiff::core {

using SyncEventUpdateHook = void (*)();

void set_sync_event_update_hook(SyncEventUpdateHook hook);
// Runs the hook, if any.
void run_sync_event_update_hook();

} // namespace skiff::core
