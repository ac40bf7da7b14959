// The emulated DMA engine of one DMA context: a worker thread, invisible to the application, fed
// through a lock-free single-producer ring by the submitting thread and handing finished tasks back
// through a second ring that only the progress engine's thread drains. Callbacks never run here.
// When idle the worker spins briefly, then sleeps on a futex; submitters wake it only then, and
// without a memory fence on their side: a wake-up lost to store reordering at the instant the worker
// falls asleep is caught by the worker's first, short sleep (see sleep_until_work()).
#pragma once

#include <doca_error.h>

#include <boost/lockfree/spsc_queue.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

struct doca_dma;
struct doca_dma_task_memcpy;

namespace skiff::core::dma {

class DmaEngine {
  public:
    explicit DmaEngine(doca_dma &owner) : owner_(owner) {}
    ~DmaEngine() { stop(); }
    DmaEngine(const DmaEngine &) = delete;
    DmaEngine &operator=(const DmaEngine &) = delete;

    // Sizes the rings for `capacity` tasks and starts the worker (ctx start).
    void start(uint32_t capacity);
    // Joins the worker and drops the rings (ctx back to IDLE; nothing is in flight then).
    void stop();

    // Submitting thread: queues a task (never full: the rings hold every task of the pool).
    void submit(doca_dma_task_memcpy *task);
    // Progress engine thread: the next finished task, or nullptr.
    doca_dma_task_memcpy *poll();
    bool has_completions() const {
        return harvested_next_ < harvested_count_ || (completed_ && completed_->read_available() > 0);
    }

    // From now on every queued task completes with DOCA_ERROR_SHUTDOWN without running (stop).
    void flush() { flushing_.store(true, std::memory_order_release); }
    // Debug: compare each task's source digest at execution with the one taken at submit.
    void set_inflight_check(bool on) { check_inflight_ = on; }
    bool checks_inflight_sources() const { return check_inflight_; }
    // Test control: while held the worker runs nothing; submitted tasks stay queued.
    void hold(bool held) { held_.store(held, std::memory_order_release); }

    // The nth task executed from now fails with `status` and the ctx stops, exactly like a task that
    // fails on its own (0 cancels).
    void inject_fatal(uint32_t nth, doca_error_t status);

  private:
    using Ring = boost::lockfree::spsc_queue<doca_dma_task_memcpy *>;

    void run();
    // Runs one task and sets its status; returns the bytes it moved.
    size_t execute(doca_dma_task_memcpy *task);
    // A failed task is fatal to the engine: flush the rest and stop the ctx.
    void fail(doca_dma_task_memcpy *task, doca_error_t status);
    void sleep_until_work();

    doca_dma &owner_;
    std::unique_ptr<Ring> submitted_;
    std::unique_ptr<Ring> completed_;
    // Completions taken from the ring in one go by poll() and handed out one per call: one read of
    // the ring's shared indices per batch instead of per task.
    static constexpr size_t kHarvest = 32;
    doca_dma_task_memcpy *harvested_[kHarvest] = {};
    size_t harvested_next_ = 0;
    size_t harvested_count_ = 0;
    std::vector<uint8_t> bounce_;
    std::thread worker_;
    std::atomic<bool> quit_{false};
    std::atomic<bool> flushing_{false};
    std::atomic<bool> held_{false};
    bool check_inflight_ = false; // set while IDLE only
    std::atomic<uint32_t> sleeping_{0};
    std::atomic<uint32_t> fail_countdown_{0};
    std::atomic<doca_error_t> fail_status_{DOCA_ERROR_IO_FAILED};
};

} // namespace skiff::core::dma
