#include "exec/task.hpp"

#include "exec/context.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core {

void TaskKind::build_pool(doca_ctx *owner) {
    release_pool();
    if (capacity_ == 0) return;
    free_.reserve(capacity_);
    create_storage(free_);
    for (doca_task *task : free_) {
        task->ctx = owner;
        task->kind = this;
    }
    pool_built_ = true;
}

void TaskKind::release_pool() {
    free_.clear();
    free_.shrink_to_fit();
    if (pool_built_) destroy_storage();
    pool_built_ = false;
}

doca_task *TaskKind::take() {
    if (free_.empty()) return nullptr;
    doca_task *task = free_.back();
    free_.pop_back();
    return task;
}

void TaskKind::give_back(doca_task *task) {
    free_.push_back(task);
}

} // namespace skiff::core

// ---- the generic task API (doca_pe.h)

extern "C" {

doca_error_t doca_task_submit(doca_task *task) {
    if (!task) return DOCA_ERROR_INVALID_VALUE;
    return task->ctx->submit(task, false);
}

doca_error_t doca_task_submit_ex(doca_task *task, uint32_t flags) {
    constexpr uint32_t kKnown = DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS;
    if (!task || (flags & ~kKnown) != 0) return DOCA_ERROR_INVALID_VALUE;
    // Every engine takes the task at submit (FLUSH has nothing to add) and reports it as it
    // completes (OPTIMIZE_REPORTS allows a later report, never requires one).
    return task->ctx->submit(task, false);
}

doca_error_t doca_task_try_submit(doca_task *task) {
    if (!task) return DOCA_ERROR_INVALID_VALUE;
    return task->ctx->submit(task, true);
}

void doca_task_free(doca_task *task) {
    if (!task) return;
    task->ctx->free_task(task);
}

doca_error_t doca_task_get_status(const doca_task *task) {
    return task ? task->status : DOCA_ERROR_INVALID_VALUE;
}

void doca_task_set_user_data(doca_task *task, doca_data user_data) {
    if (task) task->user_data = user_data;
}

doca_data doca_task_get_user_data(const doca_task *task) {
    return task ? task->user_data : doca_data{};
}

doca_ctx *doca_task_get_ctx(const doca_task *task) {
    return task ? task->ctx : nullptr;
}

} // extern "C"
