// doca_dpa_completion: the ring, arming and population, the host API and the device calls.
#include "dpa/completion.hpp"

#include "dpa/device_call.hpp"
#include "dpa/thread.hpp"

#include <doca_dpa_dev.h>
#include <skiff/core/dpa_verbs_cq.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

using skiff::core::dpa::check_usable;
using skiff::core::dpa::CompletionSlot;
using skiff::core::dpa::dpa_logger;

doca_error_t doca_dpa_completion::post(uint32_t type, uint32_t user_data, uint32_t immediate,
                                       const void *raw_wc) {
    // seq_cst: with `armed` below it pairs with request_notification (store armed, load reserved);
    // all four in the single seq_cst order, one side sees the other. Same instruction as acq_rel.
    uint64_t idx = reserved.fetch_add(1, std::memory_order_seq_cst);
    if (idx - acked.load(std::memory_order_acquire) >= queue_size) {
        dpa->fail("completion queue overflow: more than queue_size (" + std::to_string(queue_size) +
                  ") completions are not acknowledged");
        return DOCA_ERROR_FULL;
    }
    CompletionSlot &slot = ring[idx % queue_size];
    slot.type = type;
    slot.user_data = user_data;
    slot.immediate = immediate;
    slot.has_raw_wc = raw_wc != nullptr;
    if (raw_wc) std::memcpy(slot.raw_wc, raw_wc, skiff::core::dpa::kRawWcBytes);
    slot.seq.store(idx + 1, std::memory_order_release);
    if (!thread || hardware_semantics()) populate(idx + 1); // polled use, or the hardware's rule
    if (!thread) return DOCA_SUCCESS;
    // Pairs with request_notification: it arms, then looks at reserved; we reserve, then look at armed.
    if (armed.exchange(false, std::memory_order_seq_cst)) {
        populate(idx + 1);
        thread->trigger();
    }
    return DOCA_SUCCESS;
}

bool doca_dpa_completion::hardware_semantics() {
    static const bool hardware = [] {
        const char *v = std::getenv("SKIFF_DPA_COMPLETIONS");
        if (v == nullptr || std::strcmp(v, "documented") == 0) return false;
        if (std::strcmp(v, "hardware") == 0) return true;
        dpa_logger().warn("SKIFF_DPA_COMPLETIONS={}: not 'documented' or 'hardware'; using 'documented'", v);
        return false;
    }();
    return hardware;
}

void doca_dpa_completion::populate(uint64_t upto) {
    uint64_t cur = visible.load(std::memory_order_acquire);
    while (cur < upto && !visible.compare_exchange_weak(cur, upto, std::memory_order_acq_rel)) {
    }
}

CompletionSlot *doca_dpa_completion::get() {
    if (read >= visible.load(std::memory_order_acquire)) return nullptr;
    CompletionSlot &slot = ring[read % queue_size];
    if (slot.seq.load(std::memory_order_acquire) != read + 1) return nullptr; // producer still writing
    ++read;
    return &slot;
}

void doca_dpa_completion::ack(uint64_t n) {
    uint64_t a = acked.load(std::memory_order_relaxed);
    if (a + n > read) {
        dpa->fail("doca_dpa_dev_completion_ack: acknowledging " + std::to_string(n) + " completions, only " +
                  std::to_string(read - a) + " were read");
        return;
    }
    acked.store(a + n, std::memory_order_release);
}

void doca_dpa_completion::request_notification() {
    armed.store(true, std::memory_order_seq_cst);
    uint64_t r = reserved.load(std::memory_order_seq_cst);
    bool waiting =
        r > visible.load(std::memory_order_acquire) || read < visible.load(std::memory_order_acquire);
    if (waiting && armed.exchange(false, std::memory_order_seq_cst)) {
        populate(r);
        if (thread) thread->trigger();
    }
}

namespace {

doca_dpa_completion *completion_of(uint64_t handle, const char *api, skiff::core::dpa::DeviceCall *&call) {
    call = skiff::core::dpa::device_call(api);
    if (!call) return nullptr;
    return skiff::core::dpa::decode_handle<doca_dpa_completion>(*call, handle, api);
}

const CompletionSlot &slot_of(doca_dpa_dev_completion_element_t element) {
    return *reinterpret_cast<const CompletionSlot *>(static_cast<uintptr_t>(element));
}

} // namespace

extern "C" {

doca_error_t doca_dpa_completion_create(doca_dpa *dpa, unsigned int queue_size, doca_dpa_completion **comp) {
    if (!comp) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (queue_size == 0 || queue_size > skiff::core::dpa::kMaxQueueSize) {
        dpa_logger().error("doca_dpa_completion_create: queue_size {} is not in 1..{}", queue_size,
                           skiff::core::dpa::kMaxQueueSize);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *comp = new (std::nothrow) doca_dpa_completion();
    if (!*comp) return DOCA_ERROR_NO_MEMORY;
    (*comp)->dpa = dpa;
    (*comp)->queue_size = queue_size;
    dpa->objects.fetch_add(1);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_destroy(doca_dpa_completion *comp) {
    if (!comp || comp->magic != doca_dpa_completion::kMagic) return DOCA_ERROR_INVALID_VALUE;
    if (comp->attached.load() != 0) {
        dpa_logger().error("doca_dpa_completion_destroy: async ops or RDMA contexts are still attached");
        return DOCA_ERROR_IN_USE;
    }
    // Destroying a started context stops it first (DOCA programs do it: NVIDIA's dpa_ping_pong),
    // unless its thread may still run and read it.
    if (comp->started && comp->dpa->usable() && comp->thread && comp->thread->runnable.load() &&
        !comp->thread->finished.load()) {
        dpa_logger().error("doca_dpa_completion_destroy: its thread can still run; stop or finish it first");
        return DOCA_ERROR_BAD_STATE;
    }
    comp->started = false;
    if (comp->thread) {
        auto &v = comp->thread->completions;
        v.erase(std::remove(v.begin(), v.end(), comp), v.end());
    }
    comp->dpa->objects.fetch_sub(1);
    comp->magic = 0;
    delete comp;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_get_queue_size(doca_dpa_completion *comp, unsigned int *queue_size) {
    if (!comp || !queue_size) return DOCA_ERROR_INVALID_VALUE;
    *queue_size = comp->queue_size;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_set_thread(doca_dpa_completion *comp, doca_dpa_thread *thread) {
    if (!comp || !thread) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(comp->dpa); r != DOCA_SUCCESS) return r;
    if (comp->started) return DOCA_ERROR_BAD_STATE;
    if (thread->dpa != comp->dpa) {
        dpa_logger().error(
            "doca_dpa_completion_set_thread: the thread and the completion context must be on the "
            "same (extended) DPA context");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (comp->thread) {
        auto &v = comp->thread->completions;
        v.erase(std::remove(v.begin(), v.end(), comp), v.end());
    }
    comp->thread = thread;
    thread->completions.push_back(comp);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_get_thread(doca_dpa_completion *comp, doca_dpa_thread **thread) {
    if (!comp || !thread) return DOCA_ERROR_INVALID_VALUE;
    *thread = comp->thread;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_start(doca_dpa_completion *comp) {
    if (!comp) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(comp->dpa); r != DOCA_SUCCESS) return r;
    if (comp->started) return DOCA_ERROR_BAD_STATE;
    comp->ring.reset(new (std::nothrow) CompletionSlot[comp->queue_size]);
    if (!comp->ring) return DOCA_ERROR_NO_MEMORY;
    comp->reserved.store(0);
    comp->visible.store(0);
    comp->acked.store(0);
    comp->read = 0;
    // Armed by doca_dpa_dev_completion_request_notification; with the hardware's rule, from the start.
    comp->armed.store(doca_dpa_completion::hardware_semantics());
    comp->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_stop(doca_dpa_completion *comp) {
    if (!comp) return DOCA_ERROR_INVALID_VALUE;
    if (!comp->started) return DOCA_ERROR_BAD_STATE;
    if (comp->attached.load() != 0) {
        dpa_logger().error(
            "doca_dpa_completion_stop: stop the async ops / RDMA contexts posting to it first");
        return DOCA_ERROR_IN_USE;
    }
    if (comp->thread && comp->thread->runnable.load()) {
        dpa_logger().error("doca_dpa_completion_stop: stop the attached thread first");
        return DOCA_ERROR_BAD_STATE;
    }
    comp->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_completion_get_dpa_handle(doca_dpa_completion *comp,
                                                doca_dpa_dev_completion_t *handle) {
    if (!comp || !handle) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(comp->dpa); r != DOCA_SUCCESS) return r;
    if (!comp->started) return DOCA_ERROR_BAD_STATE;
    *handle = static_cast<doca_dpa_dev_completion_t>(reinterpret_cast<uintptr_t>(comp));
    return DOCA_SUCCESS;
}

doca_error_t skiff_dpa_completion_post(doca_dpa_completion *comp, uint32_t type, uint32_t user_data,
                                       uint32_t immediate) {
    if (!comp) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_usable(comp->dpa); r != DOCA_SUCCESS) return r;
    if (!comp->started) return DOCA_ERROR_BAD_STATE;
    return comp->post(type, user_data, immediate);
}

// ---- device side

int doca_dpa_dev_get_completion(doca_dpa_dev_completion_t dpa_comp_handle,
                                doca_dpa_dev_completion_element_t *comp_element) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    doca_dpa_completion *comp = completion_of(dpa_comp_handle, "doca_dpa_dev_get_completion", call);
    if (!comp || !comp_element) return 0;
    CompletionSlot *slot = comp->get();
    if (!slot && doca_dpa_completion::hardware_semantics()) {
        skiff::core::dpa::VerbsCqAttachment *verbs = comp->verbs.load(std::memory_order_acquire);
        if (verbs && skiff::core::dpa::drain_verbs_cq_inline(verbs, call->eu)) slot = comp->get();
    }
    if (!slot) return 0;
    *comp_element = static_cast<doca_dpa_dev_completion_element_t>(reinterpret_cast<uintptr_t>(slot));
    return 1;
}

doca_dpa_dev_completion_type_t
doca_dpa_dev_get_completion_type(doca_dpa_dev_completion_element_t comp_element) {
    return static_cast<doca_dpa_dev_completion_type_t>(slot_of(comp_element).type);
}

uint32_t doca_dpa_dev_get_completion_user_data(doca_dpa_dev_completion_element_t comp_element) {
    return slot_of(comp_element).user_data;
}

uint32_t doca_dpa_dev_get_completion_immediate(doca_dpa_dev_completion_element_t comp_element) {
    return slot_of(comp_element).immediate;
}

void doca_dpa_dev_completion_ack(doca_dpa_dev_completion_t dpa_comp_handle, uint64_t num_comp) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    if (doca_dpa_completion *comp = completion_of(dpa_comp_handle, "doca_dpa_dev_completion_ack", call))
        comp->ack(num_comp);
}

void doca_dpa_dev_completion_request_notification(doca_dpa_dev_completion_t dpa_comp_handle) {
    skiff::core::dpa::DeviceCall *call = nullptr;
    if (doca_dpa_completion *comp =
            completion_of(dpa_comp_handle, "doca_dpa_dev_completion_request_notification", call))
        comp->request_notification();
}

} // extern "C"

const ibv_wc *skiff::core::dpa::dev_completion_verbs_wc(doca_dpa_dev_completion_element_t element) {
    const CompletionSlot &slot = slot_of(element);
    return slot.has_raw_wc ? reinterpret_cast<const ibv_wc *>(slot.raw_wc) : nullptr;
}
