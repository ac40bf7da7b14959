#include "dma/dma_executor.hpp"

#include "dma/dma_context.hpp"
#include "dma/dma_limits.hpp"
#include "dma/memcpy_op.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core::dma {

namespace {

spdlog::logger &logger() {
    static auto log = skiff::log::get("dma");
    return *log;
}

} // namespace

void DmaExecutor::prepare() {
    bounce_.resize(kBounceBytes);
    flushing_.store(false, std::memory_order_release);
}

void DmaExecutor::inject_fatal(uint32_t nth, doca_error_t status) {
    fail_status_.store(status, std::memory_order_relaxed);
    fail_countdown_.store(nth, std::memory_order_release);
}

size_t DmaExecutor::execute(doca_dma_task_memcpy *task) {
    if (flushing_.load(std::memory_order_acquire)) {
        task->status = DOCA_ERROR_SHUTDOWN;
        return 0;
    }
    uint32_t countdown = fail_countdown_.load(std::memory_order_acquire);
    if (countdown != 0 && fail_countdown_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        fail(task, fail_status_.load(std::memory_order_relaxed)); // injected
        return 0;
    }
    if (check_inflight_ && source_digest(task->src) != task->source_digest) {
        logger().error("dma memcpy task failed: its source changed while the task was in flight "
                       "(the application must not touch a submitted task's buffers)");
        fail(task, DOCA_ERROR_UNEXPECTED);
        return 0;
    }
    MemcpyResult result = run_memcpy(task->src, task->dst, bounce_);
    if (result.status != DOCA_SUCCESS) return fail_copy(task, result);
    task->status = DOCA_SUCCESS;
    return result.bytes;
}

// Out of line: the report's formatting would weigh on every task's execute.
size_t DmaExecutor::fail_copy(doca_dma_task_memcpy *task, const MemcpyResult &result) {
    logger().warn("dma memcpy task failed ({}): {}; the tasks behind it are flushed and the ctx stops "
                  "(start it again to recover; doca_task_try_submit refuses such tasks up front)",
                  doca_error_get_name(result.status), result.why);
    fail(task, result.status);
    return 0;
}

// Like the hardware, whose queue goes to an error state on a failed completion: the task fails,
// every task after it is flushed and the ctx stops (a new start recovers). doca_task_try_submit
// catches bad tasks before they get here.
void DmaExecutor::fail(doca_dma_task_memcpy *task, doca_error_t status) {
    flushing_.store(true, std::memory_order_release);
    task->status = status;
    owner_.engine_failed_fatally();
}

} // namespace skiff::core::dma
