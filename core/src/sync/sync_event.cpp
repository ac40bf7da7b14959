#include "sync/sync_event.hpp"
#include "exec/ctx_destroy.hpp"
#include "exec/live_objects.hpp"

#include "rdma/verbs.hpp"
#include "sync/update_hook.hpp"
#include "sync/wait_mask.hpp"

#include <skiff/core/log.hpp>

#include <thread>

#include <sys/mman.h>
#include <unistd.h>

#include <new>
#include <sched.h>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("sync");
    return *log;
}

// How long a CPU waiter spins before it sleeps, and how long one sleep lasts at most.
constexpr int kSpinsBeforeSleep = 2000;
constexpr long kSleepSliceUs = 1000;

} // namespace

doca_sync_event::doca_sync_event() : doca_ctx("sync_event") {
    register_task_kind(&get_kind);
    register_task_kind(&set_kind);
    register_task_kind(&add_kind);
    register_task_kind(&wait_kind);
    register_task_kind(&wait_eq_kind);
}

doca_sync_event::~doca_sync_event() {
    // An updater on another thread may still be waking waiters after storing the value that let
    // the destroying thread go on (an EU completing a kernel launch, for one).
    while (updaters_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    if (remote_export.mr) skiff::core::rdma::deregister_word(remote_export.mr);
    if (shared_mapping_) munmap(shared_mapping_, shared_mapping_len_);
    if (shared_fd_ >= 0) close(shared_fd_);
}

doca_error_t doca_sync_event::add_location(bool publisher, const char *where) {
    if (frozen()) {
        logger().error("sync event: {} location {} must be declared before start",
                       publisher ? "publisher" : "subscriber", where);
        return DOCA_ERROR_BAD_STATE;
    }
    (publisher ? has_publisher_ : has_subscriber_) = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::set_addr(uint64_t *addr) {
    if (frozen()) return DOCA_ERROR_BAD_STATE;
    if (!addr || reinterpret_cast<uintptr_t>(addr) % alignof(uint64_t) != 0) {
        logger().error("sync event set_addr: the address must be a non-NULL 8-byte aligned uint64_t");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (has_remote_pci_location_) {
        logger().error(
            "sync event set_addr: a remote-PCI publisher needs the counter in memory the other side "
            "can map; the event keeps its own");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    external_value_ = addr;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::start_standalone() {
    if (use_ == Use::ctx) {
        logger().error("sync event start: it is used as a ctx (doca_sync_event_as_ctx); use doca_ctx_start");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (standalone_started_) return DOCA_ERROR_BAD_STATE;
    if (!has_publisher_ || !has_subscriber_) {
        logger().error("sync event start: declare a publisher and a subscriber location before start "
                       "(have publisher: {}, subscriber: {})",
                       has_publisher_, has_subscriber_);
        return DOCA_ERROR_INVALID_VALUE;
    }
    use_ = Use::standalone;
    standalone_started_ = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::stop_standalone() {
    if (!standalone_started_) return DOCA_ERROR_BAD_STATE;
    standalone_started_ = false;
    return DOCA_SUCCESS;
}

doca_ctx *doca_sync_event::as_ctx() {
    if (use_ == Use::standalone) {
        logger().error("sync event as_ctx: it was started standalone; the two uses are exclusive");
        return nullptr;
    }
    use_ = Use::ctx;
    return this;
}

std::atomic_ref<uint64_t> doca_sync_event::counter() const {
    return std::atomic_ref<uint64_t>(external_value_ ? *external_value_ : own_value_);
}

uint64_t doca_sync_event::load() const {
    return counter().load(std::memory_order_acquire);
}

void doca_sync_event::store(uint64_t value) {
    updaters_.fetch_add(1, std::memory_order_acq_rel);
    counter().store(value, std::memory_order_release);
    updated();
}

uint64_t doca_sync_event::fetch_add(uint64_t value) {
    updaters_.fetch_add(1, std::memory_order_acq_rel);
    uint64_t before = counter().fetch_add(value, std::memory_order_acq_rel);
    updated();
    return before;
}

void doca_sync_event::updated() {
    signal_.publish();
    if (use_ == Use::ctx) notify_pe();                 // a wait_gt task may be ready now
    updaters_.fetch_sub(1, std::memory_order_release); // the last touch of this object
    skiff::core::run_sync_event_update_hook();         // DPA work waiting on an event
}

void doca_sync_event::wait(uint64_t threshold, uint64_t mask, skiff::core::WaitOp op, bool yield_only) {
    for (int spin = 0;; ++spin) {
        uint32_t seen = signal_.sequence();
        if (skiff::core::wait_satisfied(load(), threshold, mask, op)) return;
        if (yield_only) {
            sched_yield();
        } else if (spin >= kSpinsBeforeSleep) {
            signal_.wait(seen, kSleepSliceUs);
        }
    }
}

// ---- doca_sync_event.h: object and standalone API

extern "C" {

doca_error_t doca_sync_event_create(doca_sync_event **event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    *event = new (std::nothrow) doca_sync_event();
    if (!*event) return DOCA_ERROR_NO_MEMORY;
    skiff::core::live_exec_objects().add(*event);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_destroy(doca_sync_event *event) {
    return skiff::core::destroy_idle_ctx(event, logger(), "doca_sync_event_destroy", "sync event");
}

doca_error_t doca_sync_event_add_publisher_location_cpu(doca_sync_event *event, doca_dev *dev) {
    if (!event || !dev) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t r = event->add_location(true, "cpu");
    if (r == DOCA_SUCCESS) event->set_cpu_dev(dev);
    return r;
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(doca_sync_event *event, doca_dev *dev) {
    if (!event || !dev) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t r = event->add_location(false, "cpu");
    if (r == DOCA_SUCCESS) event->set_cpu_dev(dev);
    return r;
}

doca_error_t doca_sync_event_add_publisher_location_dpu(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    return event->add_location(true, "dpu");
}

doca_error_t doca_sync_event_add_subscriber_location_dpu(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    return event->add_location(false, "dpu");
}

// DPA locations: the DPA reaches the counter through doca_sync_event_get_dpa_handle.
doca_error_t doca_sync_event_add_publisher_location_dpa(doca_sync_event *event, doca_dpa *dpa) {
    if (!event || !dpa) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t r = event->add_location(true, "dpa");
    if (r == DOCA_SUCCESS) event->add_dpa_location();
    return r;
}

doca_error_t doca_sync_event_add_subscriber_location_dpa(doca_sync_event *event, doca_dpa *dpa) {
    if (!event || !dpa) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t r = event->add_location(false, "dpa");
    if (r == DOCA_SUCCESS) event->add_dpa_location();
    return r;
}

doca_error_t doca_sync_event_add_publisher_location_gpu(doca_sync_event *event, doca_gpu *gpu) {
    if (!event || !gpu) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_add_subscriber_location_gpu(doca_sync_event *event, doca_gpu *gpu) {
    if (!event || !gpu) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_sync_event_set_addr(doca_sync_event *event, uint64_t *addr) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    return event->set_addr(addr);
}

doca_error_t doca_sync_event_start(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    return event->start_standalone();
}

doca_error_t doca_sync_event_stop(doca_sync_event *event) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    return event->stop_standalone();
}

doca_ctx *doca_sync_event_as_ctx(doca_sync_event *event) {
    return event ? event->as_ctx() : nullptr;
}

doca_error_t doca_sync_event_get(doca_sync_event *event, uint64_t *value) {
    if (!event || !value) return DOCA_ERROR_INVALID_VALUE;
    if (!event->operational()) return DOCA_ERROR_BAD_STATE;
    *value = event->load();
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_add(doca_sync_event *event, uint64_t value, uint64_t *fetched) {
    if (!event || !fetched) return DOCA_ERROR_INVALID_VALUE;
    if (!event->operational()) return DOCA_ERROR_BAD_STATE;
    *fetched = event->fetch_add(value);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_set(doca_sync_event *event, uint64_t value) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    if (!event->operational()) return DOCA_ERROR_BAD_STATE;
    event->store(value);
    return DOCA_SUCCESS;
}

static doca_error_t wait_checked(doca_sync_event *event, uint64_t value, uint64_t mask,
                                 skiff::core::WaitOp op, bool yield_only) {
    if (!event) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::is_valid_wait_mask(mask)) {
        logger().error("sync event wait_{}: mask {:#x} is not 0 or an aligned run of 1, 2, 4 or 8 0xFF bytes",
                       op == skiff::core::WaitOp::gt ? "gt" : "eq", mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!event->operational()) return DOCA_ERROR_BAD_STATE;
    event->wait(value, mask, op, yield_only);
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_wait_gt(doca_sync_event *event, uint64_t value, uint64_t mask) {
    return wait_checked(event, value, mask, skiff::core::WaitOp::gt, false);
}

doca_error_t doca_sync_event_wait_gt_yield(doca_sync_event *event, uint64_t value, uint64_t mask) {
    return wait_checked(event, value, mask, skiff::core::WaitOp::gt, true);
}

doca_error_t doca_sync_event_wait_eq(doca_sync_event *event, uint64_t value, uint64_t mask) {
    return wait_checked(event, value, mask, skiff::core::WaitOp::eq, false);
}

doca_error_t doca_sync_event_wait_eq_yield(doca_sync_event *event, uint64_t value, uint64_t mask) {
    return wait_checked(event, value, mask, skiff::core::WaitOp::eq, true);
}

} // extern "C"
