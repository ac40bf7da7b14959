// doca_dpa_notification_completion: lets device code wake one given DPA thread (no payload).
#include "dpa/device_call.hpp"
#include "dpa/thread.hpp"

#include <doca_dpa_dev.h>

#include <new>

using skiff::core::dpa::check_usable;

struct doca_dpa_notification_completion {
    static constexpr uint32_t kMagic = 0x44504e43; // "DPNC"
    uint32_t magic = kMagic;
    doca_dpa *dpa = nullptr;
    doca_dpa_thread *thread = nullptr;
    bool started = false;
};

extern "C" {

doca_error_t doca_dpa_notification_completion_create(doca_dpa *dpa, doca_dpa_thread *thread,
                                                     doca_dpa_notification_completion **nc) {
    if (!thread || !nc) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (thread->dpa != dpa) {
        skiff::core::dpa::dpa_logger().error(
            "doca_dpa_notification_completion_create: the thread is on another DPA context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    *nc = new (std::nothrow) doca_dpa_notification_completion();
    if (!*nc) return DOCA_ERROR_NO_MEMORY;
    (*nc)->dpa = dpa;
    (*nc)->thread = thread;
    dpa->objects.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_destroy(doca_dpa_notification_completion *nc) {
    if (!nc || nc->magic != doca_dpa_notification_completion::kMagic) return DOCA_ERROR_INVALID_VALUE;
    if (nc->started && nc->dpa->usable()) return DOCA_ERROR_BAD_STATE;
    nc->dpa->objects.fetch_sub(1);
    nc->magic = 0;
    delete nc;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_get_thread(doca_dpa_notification_completion *nc,
                                                         doca_dpa_thread **thread) {
    if (!nc || !thread) return DOCA_ERROR_INVALID_VALUE;
    *thread = nc->thread;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_start(doca_dpa_notification_completion *nc) {
    if (!nc) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(nc->dpa); r != DOCA_SUCCESS) return r;
    if (nc->started) return DOCA_ERROR_BAD_STATE;
    nc->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_stop(doca_dpa_notification_completion *nc) {
    if (!nc) return DOCA_ERROR_INVALID_VALUE;
    if (!nc->started) return DOCA_ERROR_BAD_STATE;
    nc->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_notification_completion_get_dpa_handle(doca_dpa_notification_completion *nc,
                                                             doca_dpa_dev_notification_completion_t *handle) {
    if (!nc || !handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(nc->dpa); r != DOCA_SUCCESS) return r;
    if (!nc->started) return DOCA_ERROR_BAD_STATE;
    *handle = static_cast<doca_dpa_dev_notification_completion_t>(reinterpret_cast<uintptr_t>(nc));
    return DOCA_SUCCESS;
}

void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t notify_handle) {
    auto *call = skiff::core::dpa::device_call("doca_dpa_dev_thread_notify");
    if (!call) return;
    auto *nc = skiff::core::dpa::decode_handle<doca_dpa_notification_completion>(
        *call, notify_handle, "doca_dpa_dev_thread_notify");
    if (!nc) return;
    if (!nc->started) {
        skiff::core::dpa::device_fault(*call,
                                       "doca_dpa_dev_thread_notify: the notification completion is stopped");
        return;
    }
    nc->thread->trigger();
}

} // extern "C"
