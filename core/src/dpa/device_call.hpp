// What the device side knows about the code it is running: set by an EU around every device
// function (a DPA thread's run, one rank of a kernel, an RPC), read by the doca_dpa_dev_* calls
// through a thread-local pointer. Also the checked decoding of device handles.
#pragma once

#include "dpa/dpa_context.hpp"

#include <atomic>
#include <csetjmp>
#include <cstdint>

struct doca_dpa_thread;

namespace skiff::core::dpa {

class Eu;

struct DeviceCall {
    enum class Kind { thread, kernel, rpc };
    enum class End { none, reschedule, finish };
    Kind kind = Kind::thread;
    doca_dpa *dpa = nullptr;    // the context the function was started on
    doca_dpa *device = nullptr; // doca_dpa_dev_device_set (default: the base context)
    doca_dpa_thread *thread = nullptr;
    unsigned rank = 0;
    unsigned num_threads = 1;
    End end = End::none;
    Eu *eu = nullptr;
    const char *function = "";
    // A DPA thread's run: where doca_dpa_dev_thread_reschedule / _finish jump to. On the DPA they
    // never return (NVIDIA's dpa_ping_pong finishes from inside an endless loop), so here they
    // longjmp back to the EU over the device code's frames (C, or C++ with nothing to destroy).
    jmp_buf *end_run = nullptr;
#ifndef NDEBUG
    // Owner slots of the non-thread-safe objects this run uses (owner_check.hpp), released when
    // the run ends. False when full: the object is then not tracked for this run.
    bool track_owned(std::atomic<DeviceCall *> *slot) {
        if (num_owned == kMaxOwned) return false;
        owned[num_owned++] = slot;
        return true;
    }
    void release_owned() {
        for (unsigned i = 0; i < num_owned; ++i) owned[i]->store(nullptr, std::memory_order_release);
        num_owned = 0;
    }
    static constexpr unsigned kMaxOwned = 8;
    std::atomic<DeviceCall *> *owned[kMaxOwned]{};
    unsigned num_owned = 0;
#endif
};

// The call running on this EU thread (nullptr outside device code).
DeviceCall *current_call();

class ScopedCall {
  public:
    explicit ScopedCall(DeviceCall &call);
    ~ScopedCall();
    ScopedCall(const ScopedCall &) = delete;
    ScopedCall &operator=(const ScopedCall &) = delete;

  private:
    DeviceCall *previous_;
};

// The current call, or nullptr after logging that `api` was called outside device code.
DeviceCall *device_call(const char *api);
// Puts the running context in its fatal state: what a device crash is in the emulation.
void device_fault(DeviceCall &call, const std::string &reason);

// Decodes a handle to an object with a kMagic member and a `dpa` member, checking that it is one
// (else the fatal error) and that it may be used now: a resource of an extended context needs
// doca_dpa_dev_device_set to that context first; a resource of another DPA process is a fault.
template <typename T>
T *decode_handle(DeviceCall &call, uint64_t handle, const char *api) {
    auto *obj = reinterpret_cast<T *>(static_cast<uintptr_t>(handle));
    if (!obj || obj->magic != T::kMagic) {
        device_fault(call, std::string(api) + ": invalid handle");
        return nullptr;
    }
    if (&obj->dpa->root() != &call.dpa->root()) {
        device_fault(call, std::string(api) + ": the handle belongs to another DPA context");
        return nullptr;
    }
    if (obj->dpa->base && call.device != obj->dpa) {
        device_fault(call, std::string(api) + ": a resource of an extended DPA context is used without "
                                              "doca_dpa_dev_device_set to that context");
        return nullptr;
    }
    return obj;
}

} // namespace skiff::core::dpa
