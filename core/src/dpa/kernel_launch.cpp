// doca_dpa_kernel_launch_update_add / _set and doca_dpa_rpc.
#include "dpa/kernel_launch.hpp"

#include "dpa/device_call.hpp"
#include "dpa/dpa_context.hpp"
#include "exec/futex.hpp"
#include "sync/sync_event.hpp"

#include <cstdarg>
#include <new>
#include <sched.h>

namespace skiff::core::dpa {

void RankJob::run(Eu &eu) {
    Launch &l = *launch;
    if (l.dpa->usable()) {
        DeviceCall call;
        call.kind = DeviceCall::Kind::kernel;
        call.dpa = l.dpa;
        call.device = &l.dpa->root();
        call.rank = rank;
        call.num_threads = l.num_threads;
        call.eu = &eu;
        call.function = l.function->name.c_str();
        ScopedCall scope(call);
        call_kernel(*l.function, l.args);
    }
    l.rank_done();
}

void Launch::try_dispatch() {
    if (wait_event && wait_event->load() <= wait_threshold) return;
    if (dispatched.exchange(true, std::memory_order_acq_rel)) return;
    Engine &eus = dpa->eus();
    for (unsigned i = 0; i < num_threads; ++i) eus.next().push(&ranks[i]);
}

void Launch::rank_done() {
    if (remaining.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    // The last thread finished: now the completion event, then the launch is gone.
    if (comp_event && dpa->usable()) {
        if (comp_set)
            comp_event->store(comp_count);
        else
            comp_event->fetch_add(comp_count);
    }
    remove_waiter(this);
    release_hw_threads(num_threads);
    doca_dpa &root = dpa->root();
    {
        std::lock_guard lock(root.launch_mu);
        root.launches.erase(this);
    }
    delete this;
}

void cancel_waiting_launches(doca_dpa &dpa) {
    std::vector<Launch *> never_started;
    {
        std::lock_guard lock(dpa.launch_mu);
        for (Launch *l : dpa.launches) {
            if (!l->dispatched.exchange(true)) never_started.push_back(l);
        }
        for (Launch *l : never_started) dpa.launches.erase(l);
    }
    for (Launch *l : never_started) {
        remove_waiter(l);
        release_hw_threads(l->num_threads);
        delete l;
    }
    for (;;) {
        {
            std::lock_guard lock(dpa.launch_mu);
            if (dpa.launches.empty()) return;
        }
        sched_yield();
    }
}

namespace {

bool event_ready_for_dpa(doca_sync_event *ev, const char *which) {
    if (ev && !ev->operational()) {
        dpa_logger().error("kernel launch: the {} event is not started", which);
        return false;
    }
    return true;
}

doca_error_t launch(doca_dpa *dpa, doca_sync_event *wait_event, uint64_t wait_threshold,
                    doca_sync_event *comp_event, uint64_t comp_count, unsigned num_threads,
                    doca_dpa_func_t *func, bool set, va_list ap) {
    if (!func) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    const DeviceFunction *fn = dpa->root().app->find(func, false);
    if (!fn) {
        dpa_logger().error("kernel launch: the function is not a kernel registered in the application");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (num_threads == 0 || num_threads > kMaxThreadsPerKernel) {
        dpa_logger().error("kernel launch of {}: num_threads {} is not in 1..{}", fn->name, num_threads,
                           kMaxThreadsPerKernel);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if ((wait_event && wait_threshold > kMaxDpaEventValue) ||
        (comp_event && comp_count > kMaxDpaEventValue)) {
        dpa_logger().error("kernel launch of {}: wait_threshold {} / comp_count {} must be in [0, {}]",
                           fn->name, wait_threshold, comp_count, kMaxDpaEventValue);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!event_ready_for_dpa(wait_event, "wait") || !event_ready_for_dpa(comp_event, "completion"))
        return DOCA_ERROR_INVALID_VALUE;
    Args args;
    if (!read_args(*fn, ap, args)) return DOCA_ERROR_INVALID_VALUE;
    if (!reserve_hw_threads(num_threads)) return DOCA_ERROR_FULL;

    auto *l = new (std::nothrow) Launch();
    if (l) l->ranks.reset(new (std::nothrow) RankJob[num_threads]);
    if (!l || !l->ranks) {
        delete l;
        release_hw_threads(num_threads);
        return DOCA_ERROR_NO_MEMORY;
    }
    l->dpa = dpa;
    l->function = fn;
    l->args = args;
    l->num_threads = num_threads;
    l->wait_event = wait_event;
    l->wait_threshold = wait_threshold;
    l->comp_event = comp_event;
    l->comp_count = comp_count;
    l->comp_set = set;
    l->remaining.store(num_threads + 1); // + the launcher's reference, dropped below
    for (unsigned i = 0; i < num_threads; ++i) {
        l->ranks[i].launch = l;
        l->ranks[i].rank = i;
    }
    {
        doca_dpa &root = dpa->root();
        std::lock_guard lock(root.launch_mu);
        root.launches.insert(l);
    }
    if (wait_event) add_waiter(l); // before the check: an update in between is not lost
    l->try_dispatch();
    l->rank_done(); // the launcher is done with l; the last rank may already have run
    return DOCA_SUCCESS;
}

// An RPC: one call on EU 0; the host sleeps on `done` until it returns.
struct RpcJob final : Runnable {
    doca_dpa *dpa = nullptr;
    const DeviceFunction *function = nullptr;
    Args args{};
    uint64_t result = 0;
    std::atomic<uint32_t> done{0};

    void run(Eu &eu) override {
        if (dpa->usable()) {
            DeviceCall call;
            call.kind = DeviceCall::Kind::rpc;
            call.dpa = dpa;
            call.device = &dpa->root();
            call.eu = &eu;
            call.function = function->name.c_str();
            ScopedCall scope(call);
            result = call_rpc(*function, args);
        }
        done.store(1, std::memory_order_release);
        futex_wake_all(done);
    }
};

} // namespace
} // namespace skiff::core::dpa

using namespace skiff::core::dpa;

extern "C" {

doca_error_t doca_dpa_kernel_launch_update_add(doca_dpa *dpa, doca_sync_event *wait_event,
                                               uint64_t wait_threshold, doca_sync_event *comp_event,
                                               uint64_t comp_count, unsigned int num_threads,
                                               doca_dpa_func_t *func, ...) {
    va_list ap;
    va_start(ap, func);
    doca_error_t r =
        launch(dpa, wait_event, wait_threshold, comp_event, comp_count, num_threads, func, false, ap);
    va_end(ap);
    return r;
}

doca_error_t doca_dpa_kernel_launch_update_set(doca_dpa *dpa, doca_sync_event *wait_event,
                                               uint64_t wait_threshold, doca_sync_event *comp_event,
                                               uint64_t comp_count, unsigned int num_threads,
                                               doca_dpa_func_t *func, ...) {
    va_list ap;
    va_start(ap, func);
    doca_error_t r =
        launch(dpa, wait_event, wait_threshold, comp_event, comp_count, num_threads, func, true, ap);
    va_end(ap);
    return r;
}

doca_error_t doca_dpa_rpc(doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval, ...) {
    if (!func || !retval) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    const DeviceFunction *fn = dpa->root().app->find(func, true);
    if (!fn) {
        dpa_logger().error("doca_dpa_rpc: the function is not an RPC registered in the application");
        return DOCA_ERROR_INVALID_VALUE;
    }
    RpcJob job;
    job.dpa = dpa;
    job.function = fn;
    va_list ap;
    va_start(ap, retval);
    bool read = read_args(*fn, ap, job.args);
    va_end(ap);
    if (!read) return DOCA_ERROR_INVALID_VALUE;
    dpa->eus().eu(0).push(&job);
    while (job.done.load(std::memory_order_acquire) == 0) skiff::core::futex_wait(job.done, 0, 10000);
    if (!dpa->usable()) return DOCA_ERROR_BAD_STATE;
    *retval = job.result;
    return DOCA_SUCCESS;
}

} // extern "C"
