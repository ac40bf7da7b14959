// C++ handle for a DMA context: owns the doca_dma; on destruction a running context is stopped
// and drained through the progress engine it was connected to.
#pragma once

#include <skiff/core/ctx.hpp>
#include <skiff/core/status.hpp>

#include <doca_dma.h>

#include <utility>

struct doca_dev;
struct doca_pe;

namespace skiff::core {

class Dma {
  public:
    Dma() = default;
    Dma(Dma &&other) noexcept
        : dma_(std::exchange(other.dma_, nullptr)), pe_(std::exchange(other.pe_, nullptr)) {}
    Dma &operator=(Dma &&other) noexcept;
    Dma(const Dma &) = delete;
    Dma &operator=(const Dma &) = delete;
    ~Dma();

    // NOT_SUPPORTED when the device cannot run memcpy tasks.
    static Result<Dma> create(doca_dev *dev);

    doca_dma *get() const { return dma_; }
    CtxRef ctx() const { return CtxRef(doca_dma_as_ctx(dma_)); }

    Status set_memcpy_conf(doca_dma_task_memcpy_completion_cb_t on_success,
                           doca_dma_task_memcpy_completion_cb_t on_error, uint32_t num_tasks);
    // Connects the context to pe (remembered for the drain on destruction).
    Status connect(doca_pe *pe);
    // A memcpy task from the pool (RUNNING only; NO_MEMORY when all are allocated).
    Result<doca_dma_task_memcpy *> memcpy_task(const doca_buf *src, doca_buf *dst, doca_data user_data);
    // Allocates and submits; on a failed submit the task goes back to the pool.
    Status submit_memcpy(const doca_buf *src, doca_buf *dst, doca_data user_data);

  private:
    void reset();

    doca_dma *dma_ = nullptr;
    doca_pe *pe_ = nullptr;
};

} // namespace skiff::core
