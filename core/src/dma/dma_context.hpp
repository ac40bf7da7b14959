// doca_dma: the DMA context. Memcpy tasks come from a fixed pool sized by set_conf, go to the
// context's emulated engine (inline or threaded, dma_engine.hpp) and come back through
// doca_pe_progress().
#pragma once

#include "dma/dma_engine.hpp"
#include "dma/dma_executor.hpp"
#include "dma/inline_dma_engine.hpp"
#include "dma/threaded_dma_engine.hpp"
#include "exec/context.hpp"
#include "exec/task.hpp"

#include <doca_dma.h>

struct doca_dma_task_memcpy : doca_task {
    const doca_buf *src = nullptr;
    doca_buf *dst = nullptr;
    uint64_t source_digest = 0; // at submit, when the in-flight check is on
};

struct doca_dma final : doca_ctx {
  public:
    explicit doca_dma(doca_dev *dev);
    ~doca_dma() override;

    doca_dev *dev() const { return dev_; }
    skiff::core::TypedTaskKind<doca_dma_task_memcpy> memcpy_kind{"dma memcpy"};
    skiff::core::dma::DmaExecutor &executor() { return executor_; }
    skiff_dma_engine_kind engine_kind() const { return kind_; }
    // IDLE only.
    doca_error_t set_engine_kind(skiff_dma_engine_kind kind);

    // ---- called by the engines
    // Worker thread: a batch finished.
    void engine_completed() const { notify_pe(); }
    // PE thread: a task was queued for the next progress call.
    void submitted_ready_work() const { notify_pe_from_pe_thread(); }
    // Any thread.
    void engine_failed_fatally() { request_fatal_stop(); }

  protected:
    doca_error_t on_start() override;
    void on_stop_requested() override { executor_.flush(); }
    void on_stopped() override { engine_->stop(); }
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override;
    doca_task *poll_completion() override { return engine_->poll(); }
    bool completions_pending() const override { return engine_->has_completions(); }

  private:
    doca_dev *dev_;
    skiff::core::dma::DmaExecutor executor_{*this};
    skiff::core::dma::InlineDmaEngine inline_engine_{executor_};
    skiff::core::dma::ThreadedDmaEngine threaded_engine_{executor_};
    skiff_dma_engine_kind kind_ = SKIFF_DMA_ENGINE_INLINE;
    skiff::core::dma::DmaEngine *engine_ = &inline_engine_;
};
