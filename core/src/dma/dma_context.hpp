// doca_dma: the DMA context. Memcpy tasks come from a fixed pool sized by set_conf, go to the
// context's emulated engine (dma_engine.hpp) and come back through doca_pe_progress().
#pragma once

#include "dma/dma_engine.hpp"
#include "exec/context.hpp"
#include "exec/task.hpp"

#include <doca_dma.h>

struct doca_dma_task_memcpy : doca_task {
    const doca_buf *src = nullptr;
    doca_buf *dst = nullptr;
};

struct doca_dma final : doca_ctx {
  public:
    explicit doca_dma(doca_dev *dev);
    ~doca_dma() override;

    doca_dev *dev() const { return dev_; }
    skiff::core::TypedTaskKind<doca_dma_task_memcpy> memcpy_kind{"dma memcpy"};
    skiff::core::dma::DmaEngine &engine() { return engine_; }

    // ---- called by the engine's worker thread
    void engine_completed() const { notify_pe(); }
    void engine_failed_fatally() { request_fatal_stop(); }

  protected:
    doca_error_t on_start() override;
    void on_stop_requested() override { engine_.flush(); }
    void on_stopped() override { engine_.stop(); }
    doca_error_t validate(const doca_task *task) const override;
    void execute(doca_task *task) override { engine_.submit(static_cast<doca_dma_task_memcpy *>(task)); }
    doca_task *poll_completion() override { return engine_.poll(); }
    bool completions_pending() const override { return engine_.has_completions(); }

  private:
    doca_dev *dev_;
    skiff::core::dma::DmaEngine engine_{*this};
};
