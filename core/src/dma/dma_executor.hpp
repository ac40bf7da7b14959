// Runs the memcpy tasks of one DMA context, whichever engine feeds it: the behaviour both engines
// share. A task either copies, or fails fatally (the ctx stops, every task behind it is flushed
// with DOCA_ERROR_SHUTDOWN), or is flushed; the test controls (hold, injected failures, the
// in-flight source check) act here, so they work the same in the inline and the threaded engine.
// One thread at a time executes a given context's tasks (the PE's thread or the shared worker).
#pragma once

#include <doca_error.h>

#include <atomic>
#include <cstdint>
#include <vector>

struct doca_dma;
struct doca_dma_task_memcpy;

namespace skiff::core::dma {

struct MemcpyResult;

class DmaExecutor {
  public:
    explicit DmaExecutor(doca_dma &owner) : owner_(owner) {}

    doca_dma &owner() const { return owner_; }

    // ctx start: a fresh run (no flush in progress) and the bounce buffer for imported-to-imported
    // copies.
    void prepare();
    // Runs one task and sets its status; returns the bytes it moved (0 when it failed or was flushed).
    size_t execute(doca_dma_task_memcpy *task);

    // From now on every task completes with DOCA_ERROR_SHUTDOWN without running (stop).
    void flush() { flushing_.store(true, std::memory_order_release); }
    // False while a test holds the engine (a flush always runs: a stop must complete).
    bool may_run() const {
        return !held_.load(std::memory_order_acquire) || flushing_.load(std::memory_order_acquire);
    }
    // Debug: compare each task's source digest at execution with the one taken at submit.
    void set_inflight_check(bool on) { check_inflight_ = on; }
    bool checks_inflight_sources() const { return check_inflight_; }
    // Test control: while held nothing runs; submitted tasks stay queued.
    void hold(bool held) { held_.store(held, std::memory_order_release); }
    // The nth task executed from now fails with `status` and the ctx stops, exactly like a task that
    // fails on its own (0 cancels).
    void inject_fatal(uint32_t nth, doca_error_t status);

  private:
    // A failed task is fatal to the context: flush the rest and stop the ctx.
    void fail(doca_dma_task_memcpy *task, doca_error_t status);
    [[gnu::cold, gnu::noinline]] size_t fail_copy(doca_dma_task_memcpy *task, const MemcpyResult &result);

    doca_dma &owner_;
    std::vector<uint8_t> bounce_;
    std::atomic<bool> flushing_{false};
    std::atomic<bool> held_{false};
    bool check_inflight_ = false; // set while IDLE only
    std::atomic<uint32_t> fail_countdown_{0};
    std::atomic<doca_error_t> fail_status_{DOCA_ERROR_IO_FAILED};
};

} // namespace skiff::core::dma
