// The threaded DMA engine: copies run on the process's shared DMA worker (shared_dma_worker.hpp),
// invisible to the application. Tasks go in through a lock-free single-producer ring (task_ring.hpp)
// filled by the submitting (PE) thread and come back through a second ring that only the PE's thread drains;
// callbacks never run on the worker. Copies overlap the application's own work, at the price of a
// hand-off between threads per task.
#pragma once

#include "dma/dma_engine.hpp"
#include "dma/dma_executor.hpp"

#include "dma/task_ring.hpp"

#include <memory>

namespace skiff::core::dma {

class ThreadedDmaEngine final : public DmaEngine {
  public:
    explicit ThreadedDmaEngine(DmaExecutor &executor) : executor_(executor) {}
    ~ThreadedDmaEngine() override { stop(); }

    void start(uint32_t capacity) override;
    void stop() override;
    void submit(doca_dma_task_memcpy *task) override;
    doca_dma_task_memcpy *poll() override;
    bool has_completions() const override {
        return harvested_next_ < harvested_count_ || (completed_ && completed_->readable());
    }

    // ---- the shared worker's thread
    // Runs a batch of the queued tasks and hands them back; returns how many ran.
    size_t run_queued();
    bool has_queued() const { return submitted_->readable() && executor_.may_run(); }

  private:
    using Ring = TaskRing<doca_dma_task_memcpy *>;

    DmaExecutor &executor_;
    std::unique_ptr<Ring> submitted_;
    std::unique_ptr<Ring> completed_;
    bool attached_ = false;
    // Completions taken from the ring in one go by poll() and handed out one per call: one read of
    // the ring's shared indices per batch instead of per task. The PE's thread writes these on
    // every poll: they start a cache line of their own, away from the ring pointers above that the
    // worker reads for every task (sharing a line cost the worker a transfer from the other core
    // per task).
    static constexpr size_t kHarvest = 32;
    alignas(64) doca_dma_task_memcpy *harvested_[kHarvest] = {};
    size_t harvested_next_ = 0;
    size_t harvested_count_ = 0;
};

} // namespace skiff::core::dma
