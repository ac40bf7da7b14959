#include "dma/dma_engine.hpp"

#include "dma/dma_context.hpp"
#include "dma/dma_limits.hpp"
#include "dma/memcpy_op.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core::dma {

namespace {

// Idle polls before the worker goes to sleep: long enough to stay awake between back-to-back
// submissions, short enough not to burn a core when the application is quiet.
constexpr int kIdleSpins = 4096;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

} // namespace

void DmaEngine::start(uint32_t capacity) {
    stop();
    submitted_ = std::make_unique<Ring>(capacity + 1);
    completed_ = std::make_unique<Ring>(capacity + 1);
    bounce_.resize(kBounceBytes);
    quit_.store(false);
    flushing_.store(false);
    worker_ = std::thread([this] { run(); });
}

void DmaEngine::stop() {
    if (!worker_.joinable()) return;
    quit_.store(true, std::memory_order_seq_cst);
    sleeping_.store(0, std::memory_order_seq_cst);
    sleeping_.notify_one();
    worker_.join();
    submitted_.reset();
    completed_.reset();
}

void DmaEngine::inject_fatal(uint32_t nth, doca_error_t status) {
    fail_status_.store(status, std::memory_order_relaxed);
    fail_countdown_.store(nth, std::memory_order_release);
}

void DmaEngine::submit(doca_dma_task_memcpy *task) {
    submitted_->push(task);
    // Pairs with the fence in sleep_until_work(): either the worker sees the task, or we see it
    // asleep and wake it. The futex syscall happens only in the second case.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_relaxed) != 0) {
        sleeping_.store(0, std::memory_order_relaxed);
        sleeping_.notify_one();
    }
}

doca_dma_task_memcpy *DmaEngine::poll() {
    doca_dma_task_memcpy *task = nullptr;
    return completed_ && completed_->pop(task) ? task : nullptr;
}

void DmaEngine::run() {
    int idle = 0;
    while (!quit_.load(std::memory_order_acquire)) {
        doca_dma_task_memcpy *task = nullptr;
        if (submitted_->pop(task)) {
            execute(task);
            idle = 0;
        } else if (++idle < kIdleSpins) {
            cpu_relax();
        } else {
            sleep_until_work();
            idle = 0;
        }
    }
}

void DmaEngine::sleep_until_work() {
    sleeping_.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (submitted_->read_available() == 0 && !quit_.load(std::memory_order_acquire)) sleeping_.wait(1);
    sleeping_.store(0, std::memory_order_relaxed);
}

void DmaEngine::execute(doca_dma_task_memcpy *task) {
    if (flushing_.load(std::memory_order_acquire)) return finish(task, DOCA_ERROR_SHUTDOWN);
    uint32_t countdown = fail_countdown_.load(std::memory_order_acquire);
    if (countdown != 0 && fail_countdown_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        // Injected fatal error: this task fails, everything after it is flushed, the ctx stops.
        flushing_.store(true, std::memory_order_release);
        finish(task, fail_status_.load(std::memory_order_relaxed));
        owner_.engine_failed_fatally();
        return;
    }
    finish(task, run_memcpy(task->src, task->dst, bounce_));
}

void DmaEngine::finish(doca_dma_task_memcpy *task, doca_error_t status) {
    task->status = status;
    completed_->push(task);
    owner_.engine_completed();
}

} // namespace skiff::core::dma
