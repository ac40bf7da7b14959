// The running device function's context, and the device calls about the running code itself:
// rank / thread count / yield (kernels), local storage / reschedule / finish (DPA threads),
// doca_dpa_dev_device_set.
#include "dpa/device_call.hpp"

#include "dpa/thread.hpp"

#include <doca_dpa_dev.h>

#include <sched.h>

namespace skiff::core::dpa {
namespace {

thread_local DeviceCall *t_call = nullptr;

} // namespace

DeviceCall *current_call() {
    return t_call;
}

ScopedCall::ScopedCall(DeviceCall &call) : previous_(t_call) {
    t_call = &call;
}

ScopedCall::~ScopedCall() {
#ifndef NDEBUG
    t_call->release_owned();
#endif
    t_call = previous_;
}

DeviceCall *device_call(const char *api) {
    if (!t_call) dpa_logger().error("{} called outside DPA device code; ignored", api);
    return t_call;
}

} // namespace skiff::core::dpa

using skiff::core::dpa::device_call;
using skiff::core::dpa::device_fault;
using skiff::core::dpa::DeviceCall;

namespace {

// The call when it runs a kernel (rank / num_threads / yield are kernel-only), else a fault.
DeviceCall *kernel_call(const char *api) {
    DeviceCall *call = device_call(api);
    if (call && call->kind != DeviceCall::Kind::kernel) {
        device_fault(*call, std::string(api) + " is valid only in a launched kernel");
        return nullptr;
    }
    return call;
}

DeviceCall *thread_call(const char *api) {
    DeviceCall *call = device_call(api);
    if (call && call->kind != DeviceCall::Kind::thread) {
        device_fault(*call, std::string(api) + " is valid only in a DPA thread");
        return nullptr;
    }
    return call;
}

} // namespace

extern "C" {

unsigned int doca_dpa_dev_thread_rank(void) {
    DeviceCall *call = kernel_call("doca_dpa_dev_thread_rank");
    return call ? call->rank : 0;
}

unsigned int doca_dpa_dev_num_threads(void) {
    DeviceCall *call = kernel_call("doca_dpa_dev_num_threads");
    return call ? call->num_threads : 0;
}

void doca_dpa_dev_yield(void) {
    if (kernel_call("doca_dpa_dev_yield")) sched_yield();
}

void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle) {
    DeviceCall *call = device_call("doca_dpa_dev_device_set");
    if (!call) return;
    auto *dpa = reinterpret_cast<doca_dpa *>(static_cast<uintptr_t>(dpa_handle));
    if (!dpa || dpa->magic != doca_dpa::kMagic || &dpa->root() != &call->dpa->root()) {
        device_fault(*call, "doca_dpa_dev_device_set: not a handle of this DPA context or its extensions");
        return;
    }
    call->device = dpa;
}

doca_dpa_dev_uintptr_t doca_dpa_dev_thread_get_local_storage(void) {
    DeviceCall *call = thread_call("doca_dpa_dev_thread_get_local_storage");
    return call ? call->thread->local_storage : 0;
}

// Both end the run and do not return (DeviceCall::end_run); only a misuse (outside a DPA thread,
// a fault already logged) returns.
void doca_dpa_dev_thread_reschedule(void) {
    if (DeviceCall *call = thread_call("doca_dpa_dev_thread_reschedule")) {
        call->end = DeviceCall::End::reschedule;
        if (call->end_run) std::longjmp(*call->end_run, 1);
    }
}

void doca_dpa_dev_thread_finish(void) {
    if (DeviceCall *call = thread_call("doca_dpa_dev_thread_finish")) {
        call->end = DeviceCall::End::finish;
        if (call->end_run) std::longjmp(*call->end_run, 1);
    }
}

} // extern "C"
