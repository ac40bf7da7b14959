#include "dma/dma_engine.hpp"

#include "dma/dma_context.hpp"
#include "dma/dma_limits.hpp"
#include "dma/memcpy_op.hpp"
#include "exec/futex.hpp"

#include <skiff/core/log.hpp>

namespace skiff::core::dma {

namespace {

// Idle polls before the worker goes to sleep: long enough to stay awake between back-to-back
// submissions, short enough not to burn a core when the application is quiet. Past kBusySpins the
// worker yields between polls, so that on a machine with fewer free cores than busy threads the
// submitting thread gets the CPU instead of watching the worker spin.
constexpr int kBusySpins = 256;
constexpr int kIdleSpins = 4096;
// The worker's first sleep after going idle, and the longest one (a safety net only).
constexpr long kFirstSleepUs = 50;
constexpr long kLongSleepUs = 100000;
// Copies at least this big are handed back on their own, without waiting for their batch.
constexpr size_t kReturnAtOnceBytes = 4096;
// Most tasks the worker takes from the ring at once.
constexpr size_t kBatch = 32;

spdlog::logger &logger() {
    static auto log = skiff::log::get("dma");
    return *log;
}

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
    harvested_next_ = harvested_count_ = 0;
    quit_.store(false);
    flushing_.store(false);
    worker_ = std::thread([this] { run(); });
}

void DmaEngine::stop() {
    if (!worker_.joinable()) return;
    quit_.store(true, std::memory_order_seq_cst);
    sleeping_.store(0, std::memory_order_seq_cst);
    futex_wake_all(sleeping_);
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
    if (sleeping_.load(std::memory_order_relaxed) != 0) {
        sleeping_.store(0, std::memory_order_relaxed);
        futex_wake_all(sleeping_);
    }
}

doca_dma_task_memcpy *DmaEngine::poll() {
    if (harvested_next_ == harvested_count_) {
        if (!completed_) return nullptr;
        harvested_count_ = completed_->pop(harvested_, kHarvest);
        harvested_next_ = 0;
        if (harvested_count_ == 0) return nullptr;
    }
    return harvested_[harvested_next_++];
}

void DmaEngine::run() {
    doca_dma_task_memcpy *batch[kBatch];
    int idle = 0;
    while (!quit_.load(std::memory_order_acquire)) {
        // Take every queued task at once (one read of the ring's shared indices per batch). Small
        // copies go back together after the batch; a large copy goes back as soon as it is done
        // (with the small ones before it), so that the application reuses it while the rest of the
        // batch runs. The progress engine is told once per batch (that check costs a fence).
        // A held engine runs nothing, unless it is flushing (a stop must always complete).
        bool held = held_.load(std::memory_order_acquire) && !flushing_.load(std::memory_order_acquire);
        size_t n = held ? 0 : submitted_->pop(batch, kBatch);
        if (n != 0) {
            size_t returned = 0;
            for (size_t i = 0; i < n; ++i) {
                if (execute(batch[i]) >= kReturnAtOnceBytes) {
                    completed_->push(batch + returned, i + 1 - returned);
                    returned = i + 1;
                }
            }
            completed_->push(batch + returned, n - returned);
            owner_.engine_completed();
            idle = 0;
        } else if (++idle < kBusySpins) {
            cpu_relax();
        } else if (idle < kIdleSpins) {
            std::this_thread::yield();
        } else {
            sleep_until_work();
            idle = 0;
        }
    }
}

void DmaEngine::sleep_until_work() {
    sleeping_.store(1, std::memory_order_seq_cst);
    // A submitter that pushed just now may have read sleeping_ as 0 before our store reached it
    // (it uses no fence); its task is then in the ring but nobody woke us. The first sleep is
    // short so that such a task waits at most kFirstSleepUs; afterwards our flag is long visible
    // and every submitter wakes us, so we sleep until woken.
    if (submitted_->read_available() == 0 && !quit_.load(std::memory_order_acquire))
        futex_wait(sleeping_, 1, kFirstSleepUs);
    if (submitted_->read_available() == 0 && !quit_.load(std::memory_order_acquire))
        futex_wait(sleeping_, 1, kLongSleepUs);
    sleeping_.store(0, std::memory_order_relaxed);
}

size_t DmaEngine::execute(doca_dma_task_memcpy *task) {
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
    if (result.status != DOCA_SUCCESS) {
        logger().warn("dma memcpy task failed ({}): {}; the tasks behind it are flushed and the ctx stops "
                      "(start it again to recover; doca_task_try_submit refuses such tasks up front)",
                      doca_error_get_name(result.status), result.why);
        fail(task, result.status);
        return 0;
    }
    task->status = DOCA_SUCCESS;
    return result.bytes;
}

// Like the hardware, whose queue goes to an error state on a failed completion: the task fails,
// every task after it is flushed and the ctx stops (a new start recovers). doca_task_try_submit
// catches bad tasks before they get here.
void DmaEngine::fail(doca_dma_task_memcpy *task, doca_error_t status) {
    flushing_.store(true, std::memory_order_release);
    task->status = status;
    owner_.engine_failed_fatally();
}

} // namespace skiff::core::dma
