// Sync events on the DPA: the handle the host hands out, and the device calls on it.
#include "dpa/device_call.hpp"
#include "sync/sync_event.hpp"
#include "sync/wait_mask.hpp"

#include <doca_dpa_dev_sync_event.h>

#include <sched.h>

using skiff::core::dpa::DeviceCall;

namespace {

doca_sync_event *event_of(uint64_t handle, const char *api, DeviceCall *&call) {
    call = skiff::core::dpa::device_call(api);
    if (!call) return nullptr;
    auto *ev = reinterpret_cast<doca_sync_event *>(static_cast<uintptr_t>(handle));
    if (!ev || !ev->operational()) {
        skiff::core::dpa::device_fault(*call, std::string(api) + ": invalid or stopped sync event handle");
        return nullptr;
    }
    return ev;
}

} // namespace

extern "C" {

doca_error_t doca_sync_event_get_dpa_handle(doca_sync_event *event, doca_dpa *dpa,
                                            doca_dpa_dev_sync_event_t *dpa_dev_se_handle) {
    if (!event || !dpa_dev_se_handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = skiff::core::dpa::check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!event->operational()) {
        skiff::core::dpa::dpa_logger().error("doca_sync_event_get_dpa_handle: start the event first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!event->has_dpa_location()) {
        skiff::core::dpa::dpa_logger().error(
            "doca_sync_event_get_dpa_handle: declare a DPA publisher or subscriber location before start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    *dpa_dev_se_handle = static_cast<doca_dpa_dev_sync_event_t>(reinterpret_cast<uintptr_t>(event));
    return DOCA_SUCCESS;
}

void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t handle, uint64_t *value) {
    DeviceCall *call = nullptr;
    if (doca_sync_event *ev = event_of(handle, "doca_dpa_dev_sync_event_get", call); ev && value)
        *value = ev->load();
}

void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t handle, uint64_t value) {
    DeviceCall *call = nullptr;
    if (doca_sync_event *ev = event_of(handle, "doca_dpa_dev_sync_event_update_add", call))
        ev->fetch_add(value);
}

void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t handle, uint64_t value) {
    DeviceCall *call = nullptr;
    if (doca_sync_event *ev = event_of(handle, "doca_dpa_dev_sync_event_update_set", call)) ev->store(value);
}

void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t handle, uint64_t value, uint64_t mask) {
    DeviceCall *call = nullptr;
    doca_sync_event *ev = event_of(handle, "doca_dpa_dev_sync_event_wait_gt", call);
    if (!ev) return;
    if (value > skiff::core::dpa::kMaxDpaEventValue || !skiff::core::is_valid_wait_mask(mask)) {
        skiff::core::dpa::device_fault(*call, "doca_dpa_dev_sync_event_wait_gt: value " +
                                                  std::to_string(value) +
                                                  " outside [0, 254] or invalid mask");
        return;
    }
    // The EU spins (yielding the core to other EUs / processes): a DPA thread that waits holds its EU.
    while (!skiff::core::wait_satisfied(ev->load(), value, mask)) {
        if (!call->dpa->usable()) return;
        sched_yield();
    }
}

} // extern "C"
