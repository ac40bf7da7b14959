// The inline DMA engine: copies run inside doca_pe_progress() of the progress engine the context
// is connected to, on its caller's thread. Submit only queues the task; each progress call that
// reaches this context runs the oldest queued task and hands it back, so a task completes on a
// later progress call than its submit (a task submitted from a callback waits for the next call:
// progress delivers one unit of work per call). No thread, no ring shared between threads, no
// wake-up: the cost of a copy is the memcpy plus the progress call.
#pragma once

#include "dma/dma_engine.hpp"
#include "dma/dma_executor.hpp"

#include <vector>

namespace skiff::core::dma {

class InlineDmaEngine final : public DmaEngine {
  public:
    explicit InlineDmaEngine(DmaExecutor &executor) : executor_(executor) {}

    void start(uint32_t capacity) override;
    void stop() override;
    void submit(doca_dma_task_memcpy *task) override;
    doca_dma_task_memcpy *poll() override;
    bool has_completions() const override { return count_ != 0 && executor_.may_run(); }

  private:
    DmaExecutor &executor_;
    // FIFO of submitted tasks, sized for the whole pool at start.
    std::vector<doca_dma_task_memcpy *> queue_;
    size_t head_ = 0;
    size_t count_ = 0;
};

} // namespace skiff::core::dma
