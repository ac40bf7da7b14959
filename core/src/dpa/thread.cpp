// doca_dpa_thread (activation and runs), doca_dpa_eu_affinity, doca_dpa_thread_group.
#include "dpa/thread.hpp"

#include "dpa/completion.hpp"
#include "dpa/device_call.hpp"

#include <algorithm>
#include <new>
#include <sched.h>

using skiff::core::dpa::check_usable;
using skiff::core::dpa::dpa_logger;

doca_dpa_thread::~doca_dpa_thread() = default;

void doca_dpa_thread::trigger() {
    if (finished.load(std::memory_order_acquire)) return;
    if (!runnable.load(std::memory_order_seq_cst)) {
        // Not running yet: remembered, and replayed by doca_dpa_thread_run.
        deferred.store(true, std::memory_order_seq_cst);
        if (!runnable.load(std::memory_order_seq_cst)) return;
        if (!deferred.exchange(false, std::memory_order_seq_cst)) return;
    }
    if (!queued.exchange(true, std::memory_order_acq_rel)) home->push(this);
}

void doca_dpa_thread::run(skiff::core::dpa::Eu &eu) {
    running.store(true, std::memory_order_seq_cst);
    // A trigger from now on queues the next run. An exchange, not a store: a trigger that found
    // `queued` still set (and so queued nothing) wrote it before us in its order, and our exchange
    // reads that write: its work (a posted completion) happens before this run reads it. With a
    // plain store nothing orders the two on a weakly ordered CPU and the run could miss it.
    queued.exchange(false, std::memory_order_seq_cst);
    if (runnable.load(std::memory_order_acquire) && !finished.load(std::memory_order_acquire) &&
        dpa->usable()) {
        using skiff::core::dpa::DeviceCall;
        DeviceCall call;
        call.kind = DeviceCall::Kind::thread;
        call.dpa = dpa;
        call.device = &dpa->root();
        call.thread = this;
        call.eu = &eu;
        call.function = function->name.c_str();
        {
            skiff::core::dpa::ScopedCall scope(call);
            skiff::core::dpa::Args args{};
            args[0] = arg;
            jmp_buf end_run;
            call.end_run = &end_run;
            if (setjmp(end_run) == 0) skiff::core::dpa::call_kernel(*function, args);
            call.end_run = nullptr;
        }
        runs.fetch_add(1, std::memory_order_relaxed);
        if (call.end == DeviceCall::End::finish) finished.store(true, std::memory_order_release);
    }
    running.store(false, std::memory_order_release);
}

void doca_dpa_thread::quiesce() {
    while (queued.load(std::memory_order_seq_cst) || running.load(std::memory_order_seq_cst)) sched_yield();
}

extern "C" {

// ---- EU affinity

doca_error_t doca_dpa_eu_affinity_create(doca_dpa *dpa, doca_dpa_eu_affinity **affinity) {
    if (!affinity) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    *affinity = new (std::nothrow) doca_dpa_eu_affinity();
    if (!*affinity) return DOCA_ERROR_NO_MEMORY;
    (*affinity)->dpa = dpa;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_destroy(doca_dpa_eu_affinity *affinity) {
    if (!affinity) return DOCA_ERROR_INVALID_VALUE;
    delete affinity;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_set(doca_dpa_eu_affinity *affinity, unsigned int eu_id) {
    if (!affinity) return DOCA_ERROR_INVALID_VALUE;
    if (eu_id > skiff::core::dpa::kMaxEuId) {
        dpa_logger().error("doca_dpa_eu_affinity_set: EU {} is not in 0..{}", eu_id,
                           skiff::core::dpa::kMaxEuId);
        return DOCA_ERROR_INVALID_VALUE;
    }
    affinity->set = true; // one EU at a time: a new set replaces the old
    affinity->eu_id = eu_id;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_clear(doca_dpa_eu_affinity *affinity) {
    if (!affinity) return DOCA_ERROR_INVALID_VALUE;
    affinity->set = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_eu_affinity_get(doca_dpa_eu_affinity *affinity, unsigned int *eu_id) {
    if (!affinity || !eu_id) return DOCA_ERROR_INVALID_VALUE;
    if (!affinity->set) return DOCA_ERROR_NOT_FOUND;
    *eu_id = affinity->eu_id;
    return DOCA_SUCCESS;
}

// ---- threads

doca_error_t doca_dpa_thread_create(doca_dpa *dpa, doca_dpa_thread **thread) {
    if (!thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    if (!skiff::core::dpa::reserve_hw_threads(1)) return DOCA_ERROR_FULL;
    *thread = new (std::nothrow) doca_dpa_thread();
    if (!*thread) {
        skiff::core::dpa::release_hw_threads(1);
        return DOCA_ERROR_NO_MEMORY;
    }
    (*thread)->dpa = dpa;
    dpa->objects.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_destroy(doca_dpa_thread *thread) {
    if (!thread || thread->magic != doca_dpa_thread::kMagic) return DOCA_ERROR_INVALID_VALUE;
    if (thread->started && thread->dpa->usable()) {
        if (thread->group) {
            dpa_logger().error(
                "doca_dpa_thread_destroy: the thread is in a started thread group; stop it first");
            return DOCA_ERROR_BAD_STATE;
        }
        // Destroying a started thread stops it first: DOCA programs do it (NVIDIA's dpa_ping_pong).
        doca_dpa_thread_stop(thread);
    }
    if (!thread->completions.empty() || thread->group) {
        dpa_logger().error(
            "doca_dpa_thread_destroy: completion contexts or a thread group still refer to it");
        return DOCA_ERROR_IN_USE;
    }
    thread->runnable.store(false);
    thread->quiesce();
    thread->dpa->objects.fetch_sub(1);
    skiff::core::dpa::release_hw_threads(1);
    thread->magic = 0;
    delete thread;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_func_arg(doca_dpa_thread *thread, doca_dpa_func_t *func, uint64_t arg) {
    if (!thread || !func) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(thread->dpa); r != DOCA_SUCCESS) return r;
    if (thread->started) return DOCA_ERROR_BAD_STATE;
    const auto *fn = thread->dpa->root().app->find(func, false);
    if (!fn || fn->num_args != 1) {
        dpa_logger().error("doca_dpa_thread_set_func_arg: the function is not a kernel of the application "
                           "registered with one argument");
        return DOCA_ERROR_INVALID_VALUE;
    }
    thread->func = func;
    thread->function = fn;
    thread->arg = arg;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_func_arg(doca_dpa_thread *thread, doca_dpa_func_t **func, uint64_t *arg) {
    if (!thread || !func || !arg) return DOCA_ERROR_INVALID_VALUE;
    *func = thread->func;
    *arg = thread->arg;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_affinity(doca_dpa_thread *thread, const doca_dpa_eu_affinity *affinity) {
    if (!thread || !affinity) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(thread->dpa); r != DOCA_SUCCESS) return r;
    if (thread->started) return DOCA_ERROR_BAD_STATE;
    thread->affinity = *affinity;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_affinity(doca_dpa_thread *thread, doca_dpa_eu_affinity *affinity) {
    if (!thread || !affinity) return DOCA_ERROR_INVALID_VALUE;
    *affinity = thread->affinity;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_set_local_storage(doca_dpa_thread *thread, doca_dpa_dev_uintptr_t dev_ptr) {
    if (!thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(thread->dpa); r != DOCA_SUCCESS) return r;
    if (thread->started) return DOCA_ERROR_BAD_STATE;
    if (!thread->dpa->heap_contains(dev_ptr, 1)) {
        dpa_logger().error("doca_dpa_thread_set_local_storage: {:#x} is not DPA memory of this context "
                           "(allocate it with doca_dpa_mem_alloc)",
                           dev_ptr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    thread->local_storage = dev_ptr;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_get_local_storage(doca_dpa_thread *thread, doca_dpa_dev_uintptr_t *dev_ptr) {
    if (!thread || !dev_ptr) return DOCA_ERROR_INVALID_VALUE;
    *dev_ptr = thread->local_storage;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_start(doca_dpa_thread *thread) {
    if (!thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(thread->dpa); r != DOCA_SUCCESS) return r;
    if (thread->started) return DOCA_ERROR_BAD_STATE;
    if (!thread->function) {
        dpa_logger().error("doca_dpa_thread_start: set the function with doca_dpa_thread_set_func_arg first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto &eus = thread->dpa->eus();
    thread->home = thread->affinity.set ? &eus.eu(thread->affinity.eu_id) : &eus.next();
    thread->finished.store(false);
    thread->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_stop(doca_dpa_thread *thread) {
    if (!thread) return DOCA_ERROR_INVALID_VALUE;
    if (!thread->started) return DOCA_ERROR_BAD_STATE;
    thread->runnable.store(false, std::memory_order_seq_cst);
    thread->quiesce();
    thread->deferred.store(false);
    thread->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_run(doca_dpa_thread *thread) {
    if (!thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(thread->dpa); r != DOCA_SUCCESS) return r;
    if (!thread->started) {
        dpa_logger().error("doca_dpa_thread_run: create, set_func_arg and start the thread first");
        return DOCA_ERROR_BAD_STATE;
    }
    for (auto *comp : thread->completions) {
        if (!comp->started) {
            dpa_logger().error(
                "doca_dpa_thread_run: start the completion context attached to the thread first");
            return DOCA_ERROR_BAD_STATE;
        }
    }
    if (thread->runnable.exchange(true, std::memory_order_seq_cst)) return DOCA_SUCCESS;
    if (thread->deferred.exchange(false, std::memory_order_seq_cst)) {
        if (!thread->queued.exchange(true)) thread->home->push(thread);
    }
    return DOCA_SUCCESS;
}

// ---- thread groups

doca_error_t doca_dpa_thread_group_create(doca_dpa *dpa, unsigned int num_threads,
                                          doca_dpa_thread_group **thread_group) {
    if (!thread_group || num_threads == 0) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    *thread_group = new (std::nothrow) doca_dpa_thread_group();
    if (!*thread_group) return DOCA_ERROR_NO_MEMORY;
    (*thread_group)->dpa = dpa;
    (*thread_group)->ranks.assign(num_threads, nullptr);
    dpa->objects.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_group_destroy(doca_dpa_thread_group *tg) {
    if (!tg) return DOCA_ERROR_INVALID_VALUE;
    if (tg->started) return DOCA_ERROR_BAD_STATE;
    for (auto *t : tg->ranks) {
        if (t) t->group = nullptr;
    }
    tg->dpa->objects.fetch_sub(1);
    delete tg;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_group_get_num_threads(doca_dpa_thread_group *tg, unsigned int *num_threads) {
    if (!tg || !num_threads) return DOCA_ERROR_INVALID_VALUE;
    *num_threads = static_cast<unsigned>(tg->ranks.size());
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_group_set_thread(doca_dpa_thread_group *tg, doca_dpa_thread *thread,
                                              unsigned int rank) {
    if (!tg || !thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(tg->dpa); r != DOCA_SUCCESS) return r;
    if (tg->started) return DOCA_ERROR_BAD_STATE;
    if (rank >= tg->ranks.size()) {
        dpa_logger().error("doca_dpa_thread_group_set_thread: rank {} is not in 0..{}", rank,
                           tg->ranks.size() - 1);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (thread->dpa != tg->dpa || (thread->group && thread->group != tg)) {
        dpa_logger().error(
            "doca_dpa_thread_group_set_thread: the thread is on another context or in another group");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (tg->ranks[rank]) tg->ranks[rank]->group = nullptr;
    tg->ranks[rank] = thread;
    thread->group = tg;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_group_start(doca_dpa_thread_group *tg) {
    if (!tg) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(tg->dpa); r != DOCA_SUCCESS) return r;
    if (tg->started) return DOCA_ERROR_BAD_STATE;
    for (size_t i = 0; i < tg->ranks.size(); ++i) {
        if (!tg->ranks[i] || !tg->ranks[i]->started) {
            dpa_logger().error("doca_dpa_thread_group_start: rank {} has no started thread", i);
            return DOCA_ERROR_BAD_STATE;
        }
    }
    tg->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_thread_group_stop(doca_dpa_thread_group *tg) {
    if (!tg) return DOCA_ERROR_INVALID_VALUE;
    if (!tg->started) return DOCA_ERROR_BAD_STATE;
    tg->started = false;
    return DOCA_SUCCESS;
}

} // extern "C"
