// The emulated DMA engine of one DMA context: a worker thread, invisible to the application, fed
// through a lock-free single-producer ring by the submitting thread and handing finished tasks back
// through a second ring that only the progress engine's thread drains. Callbacks never run here.
// When idle the worker spins briefly, then sleeps on a futex; submitters wake it only then.
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
    bool has_completions() const { return completed_ && completed_->read_available() > 0; }

    // From now on every queued task completes with DOCA_ERROR_SHUTDOWN without running (stop).
    void flush() { flushing_.store(true, std::memory_order_release); }
    // The nth task executed from now fails with `status` and the ctx stops (0 cancels).
    void inject_fatal(uint32_t nth, doca_error_t status);

  private:
    using Ring = boost::lockfree::spsc_queue<doca_dma_task_memcpy *>;

    void run();
    void execute(doca_dma_task_memcpy *task);
    void finish(doca_dma_task_memcpy *task, doca_error_t status);
    void sleep_until_work();

    doca_dma &owner_;
    std::unique_ptr<Ring> submitted_;
    std::unique_ptr<Ring> completed_;
    std::vector<uint8_t> bounce_;
    std::thread worker_;
    std::atomic<bool> quit_{false};
    std::atomic<bool> flushing_{false};
    std::atomic<uint32_t> sleeping_{0};
    std::atomic<uint32_t> fail_countdown_{0};
    std::atomic<doca_error_t> fail_status_{DOCA_ERROR_IO_FAILED};
};

} // namespace skiff::core::dma
