// A sync event used as a ctx: its four task kinds run on the progress engine's thread, inside
// doca_pe_progress(); a wait_gt task completes once the counter passes its threshold.
#include "sync/sync_event.hpp"
#include "sync/wait_mask.hpp"

#include <skiff/core/log.hpp>

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("sync");
    return *log;
}

} // namespace

doca_error_t doca_sync_event::on_start() {
    size_t capacity = get_kind.capacity() + set_kind.capacity() + add_kind.capacity() + wait_kind.capacity() +
                      wait_eq_kind.capacity();
    submitted_.clear();
    submitted_.reserve(capacity);
    flushing_ = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_sync_event::validate(const doca_task *task) const {
    if (task->kind == &get_kind)
        return static_cast<const doca_sync_event_task_get *>(task)->ret_val_ptr ? DOCA_SUCCESS
                                                                                : DOCA_ERROR_INVALID_VALUE;
    if (task->kind == &wait_kind) {
        auto *wait = static_cast<const doca_sync_event_task_wait_gt *>(task);
        return skiff::core::is_valid_wait_mask(wait->mask) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
    }
    if (task->kind == &wait_eq_kind) {
        auto *wait = static_cast<const doca_sync_event_task_wait_eq *>(task);
        return skiff::core::is_valid_wait_mask(wait->mask) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void doca_sync_event::execute(doca_task *task) {
    submitted_.push_back(task); // capacity reserved at start: no allocation
    notify_pe();
}

bool doca_sync_event::ready(const doca_task *task) const {
    if (flushing_) return true;
    if (task->kind == &wait_kind) {
        auto *wait = static_cast<const doca_sync_event_task_wait_gt *>(task);
        return skiff::core::wait_satisfied(load(), wait->wait_val, wait->mask, skiff::core::WaitOp::gt);
    }
    if (task->kind == &wait_eq_kind) {
        auto *wait = static_cast<const doca_sync_event_task_wait_eq *>(task);
        return skiff::core::wait_satisfied(load(), wait->wait_val, wait->mask, skiff::core::WaitOp::eq);
    }
    return true;
}

void doca_sync_event::run(doca_task *task) {
    if (flushing_) {
        task->status = DOCA_ERROR_SHUTDOWN;
        return;
    }
    doca_error_t err = validate(task);
    if (err != DOCA_SUCCESS) {
        task->status = err;
        return;
    }
    if (task->kind == &get_kind) {
        *static_cast<doca_sync_event_task_get *>(task)->ret_val_ptr = load();
    } else if (task->kind == &set_kind) {
        store(static_cast<doca_sync_event_task_notify_set *>(task)->set_val);
    } else if (task->kind == &add_kind) {
        auto *add = static_cast<doca_sync_event_task_notify_add *>(task);
        uint64_t before = fetch_add(add->inc_val);
        if (add->fetched_val_ptr) *add->fetched_val_ptr = before;
    }
}

doca_task *doca_sync_event::poll_completion() {
    for (size_t i = 0; i < submitted_.size(); ++i) {
        doca_task *task = submitted_[i];
        if (!ready(task)) continue;
        submitted_[i] = submitted_.back();
        submitted_.pop_back();
        run(task);
        return task;
    }
    return nullptr;
}

bool doca_sync_event::completions_pending() const {
    for (doca_task *task : submitted_)
        if (ready(task)) return true;
    return false;
}

// ---- doca_sync_event.h: tasks

namespace {

template <typename Kind, typename Cb>
doca_error_t set_conf(doca_sync_event *event, Kind &kind, Cb ok, Cb err, uint32_t num_tasks) {
    if (!event || !ok || !err || num_tasks == 0) {
        logger().error("sync event {} set_conf: needs both callbacks and num_tasks > 0", kind.name());
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (event->state() != DOCA_CTX_STATE_IDLE) return DOCA_ERROR_BAD_STATE;
    kind.configure(ok, err, num_tasks);
    return DOCA_SUCCESS;
}

template <typename T, typename Kind>
doca_error_t alloc(doca_sync_event *event, Kind &kind, doca_data user_data, T **out) {
    doca_task *task = nullptr;
    doca_error_t err = event->allocate(kind, &task, user_data);
    if (err == DOCA_SUCCESS) *out = static_cast<T *>(task);
    return err;
}

} // namespace

extern "C" {

// The tasks run on the CPU inside progress, so every device supports them.
doca_error_t doca_sync_event_cap_task_get_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_cap_task_wait_gt_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const doca_devinfo *devinfo) {
    return devinfo ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

doca_error_t doca_sync_event_task_get_set_conf(doca_sync_event *event,
                                               doca_sync_event_task_get_completion_cb_t ok,
                                               doca_sync_event_task_get_completion_cb_t err,
                                               uint32_t num_tasks) {
    return set_conf(event, event->get_kind, ok, err, num_tasks);
}

doca_error_t doca_sync_event_task_get_alloc_init(doca_sync_event *event, uint64_t *ret_val_ptr,
                                                 doca_data user_data, doca_sync_event_task_get **task) {
    if (!event || !ret_val_ptr || !task) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t err = alloc(event, event->get_kind, user_data, task);
    if (err == DOCA_SUCCESS) (*task)->ret_val_ptr = ret_val_ptr;
    return err;
}

doca_task *doca_sync_event_task_get_as_doca_task(doca_sync_event_task_get *task) {
    return task;
}

void doca_sync_event_task_get_set_ret_val_ptr(doca_sync_event_task_get *task, uint64_t *ret_val_ptr) {
    task->ret_val_ptr = ret_val_ptr;
}

uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const doca_sync_event_task_get *task) {
    return task->ret_val_ptr;
}

doca_error_t doca_sync_event_task_notify_set_set_conf(doca_sync_event *event,
                                                      doca_sync_event_task_notify_set_completion_cb_t ok,
                                                      doca_sync_event_task_notify_set_completion_cb_t err,
                                                      uint32_t num_tasks) {
    return set_conf(event, event->set_kind, ok, err, num_tasks);
}

doca_error_t doca_sync_event_task_notify_set_alloc_init(doca_sync_event *event, uint64_t set_val,
                                                        doca_data user_data,
                                                        doca_sync_event_task_notify_set **task) {
    if (!event || !task) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t err = alloc(event, event->set_kind, user_data, task);
    if (err == DOCA_SUCCESS) (*task)->set_val = set_val;
    return err;
}

doca_task *doca_sync_event_task_notify_set_as_doca_task(doca_sync_event_task_notify_set *task) {
    return task;
}

void doca_sync_event_task_notify_set_set_set_val(doca_sync_event_task_notify_set *task, uint64_t set_val) {
    task->set_val = set_val;
}

uint64_t doca_sync_event_task_notify_set_get_set_val(const doca_sync_event_task_notify_set *task) {
    return task->set_val;
}

doca_error_t doca_sync_event_task_notify_add_set_conf(doca_sync_event *event,
                                                      doca_sync_event_task_notify_add_completion_cb_t ok,
                                                      doca_sync_event_task_notify_add_completion_cb_t err,
                                                      uint32_t num_tasks) {
    return set_conf(event, event->add_kind, ok, err, num_tasks);
}

doca_error_t doca_sync_event_task_notify_add_alloc_init(doca_sync_event *event, uint64_t inc_val,
                                                        uint64_t *fetched_val_ptr, doca_data user_data,
                                                        doca_sync_event_task_notify_add **task) {
    if (!event || !task) return DOCA_ERROR_INVALID_VALUE;
    doca_error_t err = alloc(event, event->add_kind, user_data, task);
    if (err == DOCA_SUCCESS) {
        (*task)->inc_val = inc_val;
        (*task)->fetched_val_ptr = fetched_val_ptr;
    }
    return err;
}

doca_task *doca_sync_event_task_notify_add_as_doca_task(doca_sync_event_task_notify_add *task) {
    return task;
}

void doca_sync_event_task_notify_add_set_inc_val(doca_sync_event_task_notify_add *task, uint64_t inc_val) {
    task->inc_val = inc_val;
}

uint64_t doca_sync_event_task_notify_add_get_inc_val(const doca_sync_event_task_notify_add *task) {
    return task->inc_val;
}

void doca_sync_event_task_notify_add_set_fetched_val_ptr(doca_sync_event_task_notify_add *task,
                                                         uint64_t *fetched_val_ptr) {
    task->fetched_val_ptr = fetched_val_ptr;
}

uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(const doca_sync_event_task_notify_add *task) {
    return task->fetched_val_ptr;
}

doca_error_t doca_sync_event_task_wait_gt_set_conf(doca_sync_event *event,
                                                   doca_sync_event_task_wait_gt_completion_cb_t ok,
                                                   doca_sync_event_task_wait_gt_completion_cb_t err,
                                                   uint32_t num_tasks) {
    return set_conf(event, event->wait_kind, ok, err, num_tasks);
}

doca_error_t doca_sync_event_task_wait_gt_alloc_init(doca_sync_event *event, uint64_t wait_val, uint64_t mask,
                                                     doca_data user_data,
                                                     doca_sync_event_task_wait_gt **task) {
    if (!event || !task) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::is_valid_wait_mask(mask)) {
        logger().error(
            "sync event wait_gt task: mask {:#x} is not 0 or an aligned run of 1, 2, 4 or 8 0xFF bytes",
            mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_error_t err = alloc(event, event->wait_kind, user_data, task);
    if (err == DOCA_SUCCESS) {
        (*task)->wait_val = wait_val;
        (*task)->mask = mask;
    }
    return err;
}

doca_task *doca_sync_event_task_wait_gt_as_doca_task(doca_sync_event_task_wait_gt *task) {
    return task;
}

void doca_sync_event_task_wait_gt_set_wait_val(doca_sync_event_task_wait_gt *task, uint64_t wait_val) {
    task->wait_val = wait_val;
}

uint64_t doca_sync_event_task_wait_gt_get_wait_val(const doca_sync_event_task_wait_gt *task) {
    return task->wait_val;
}

void doca_sync_event_task_wait_gt_set_mask(doca_sync_event_task_wait_gt *task, uint64_t mask) {
    task->mask = mask;
}

uint64_t doca_sync_event_task_wait_gt_get_mask(const doca_sync_event_task_wait_gt *task) {
    return task->mask;
}

doca_error_t doca_sync_event_task_wait_eq_set_conf(doca_sync_event *event,
                                                   doca_sync_event_task_wait_eq_completion_cb_t ok,
                                                   doca_sync_event_task_wait_eq_completion_cb_t err,
                                                   uint32_t num_tasks) {
    return set_conf(event, event->wait_eq_kind, ok, err, num_tasks);
}

doca_error_t doca_sync_event_task_wait_eq_alloc_init(doca_sync_event *event, uint64_t wait_val, uint64_t mask,
                                                     doca_data user_data,
                                                     doca_sync_event_task_wait_eq **task) {
    if (!event || !task) return DOCA_ERROR_INVALID_VALUE;
    if (!skiff::core::is_valid_wait_mask(mask)) {
        logger().error(
            "sync event wait_eq task: mask {:#x} is not 0 or an aligned run of 1, 2, 4 or 8 0xFF bytes",
            mask);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_error_t err = alloc(event, event->wait_eq_kind, user_data, task);
    if (err == DOCA_SUCCESS) {
        (*task)->wait_val = wait_val;
        (*task)->mask = mask;
    }
    return err;
}

doca_task *doca_sync_event_task_wait_eq_as_doca_task(doca_sync_event_task_wait_eq *task) {
    return task;
}

void doca_sync_event_task_wait_eq_set_wait_val(doca_sync_event_task_wait_eq *task, uint64_t wait_val) {
    task->wait_val = wait_val;
}

uint64_t doca_sync_event_task_wait_eq_get_wait_val(const doca_sync_event_task_wait_eq *task) {
    return task->wait_val;
}

void doca_sync_event_task_wait_eq_set_mask(doca_sync_event_task_wait_eq *task, uint64_t mask) {
    task->mask = mask;
}

uint64_t doca_sync_event_task_wait_eq_get_mask(const doca_sync_event_task_wait_eq *task) {
    return task->mask;
}

} // extern "C"
