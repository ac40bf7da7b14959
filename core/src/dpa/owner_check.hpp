// Checklist 62: DPA objects that device code posts to (async ops, DPA RDMA handles) are not
// thread-safe; one must not be used by two device functions at once. In debug builds a device
// function that uses such an object owns it until it returns, and another device function using
// it meanwhile is a fault (the DPA's fatal error, naming the object). Compiled out with NDEBUG:
// release builds pay nothing.
#pragma once

#include "dpa/device_call.hpp"

#include <atomic>
#include <string>

namespace skiff::core::dpa {

class OwnerCheck {
  public:
#ifndef NDEBUG
    // True when `call` may use the object: it was free (call owns it now, until its run ends) or
    // call owns it already. False after a fault naming `what`.
    bool acquire(DeviceCall &call, const char *what) {
        DeviceCall *expected = nullptr;
        if (owner_.compare_exchange_strong(expected, &call, std::memory_order_acq_rel)) {
            if (!call.track_owned(&owner_)) owner_.store(nullptr, std::memory_order_release);
            return true;
        }
        if (expected == &call) return true;
        device_fault(call, std::string(what) +
                               " is used by two DPA threads or kernels at once (DPA objects are not "
                               "thread-safe; checked in debug builds)");
        return false;
    }

  private:
    std::atomic<DeviceCall *> owner_{nullptr};
#else
    bool acquire(DeviceCall &, const char *) {
        return true;
    }
#endif
};

// A device post's start: the running call (nullptr outside device code), and the object behind
// handle, decoded (decode_handle) and owned by the call (nullptr after a fault). T has an `owner`.
template <typename T>
T *decode_owned(uint64_t handle, const char *api, const char *what, DeviceCall *&call) {
    call = device_call(api);
    if (!call) return nullptr;
    T *obj = decode_handle<T>(*call, handle, api);
    if (obj && !obj->owner.acquire(*call, what)) return nullptr;
    return obj;
}

} // namespace skiff::core::dpa
