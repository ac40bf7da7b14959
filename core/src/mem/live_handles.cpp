#include <doca_error.h>

#include "mem/live_handles.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core::mem {

LiveHandles &live_handles() {
    static LiveHandles *handles = new LiveHandles(); // never destroyed: usable from static destructors
    return *handles;
}

doca_error_t check_live(const void *handle, const char *what) {
    if (live_handles().contains(handle)) return DOCA_SUCCESS;
    skiff::log::get("mem")->error("{}: {} is not a live object (destroyed already, or never created)", what,
                                  handle);
    return DOCA_ERROR_INVALID_VALUE;
}

} // namespace skiff::core::mem
