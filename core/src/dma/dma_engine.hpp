// Where a DMA context's copies run: the interface both emulated engines implement.
//   inline   (inline_dma_engine.hpp)   inside doca_pe_progress() of the context's progress engine,
//                                      on the application's thread: a copy costs what memcpy costs
//   threaded (threaded_dma_engine.hpp) on the process's one shared worker thread
//                                      (shared_dma_worker.hpp): copies overlap the application's work
// Either way a task completes inside a doca_pe_progress() call made after the submit, never inside
// doca_task_submit().
#pragma once

#include <doca_dma.h>

#include <cstdint>

struct doca_dma_task_memcpy;

namespace skiff::core::dma {

class DmaEngine {
  public:
    virtual ~DmaEngine() = default;

    // ctx start: sizes the queues for `capacity` tasks (the only allocation).
    virtual void start(uint32_t capacity) = 0;
    // ctx back to IDLE (nothing in flight): releases the queues.
    virtual void stop() = 0;
    // Queues a task (never full: the queues hold every task of the pool). PE thread.
    virtual void submit(doca_dma_task_memcpy *task) = 0;
    // The next finished task, or nullptr. PE thread.
    virtual doca_dma_task_memcpy *poll() = 0;
    // True when poll() would return a task (also read when the PE arms its notification).
    virtual bool has_completions() const = 0;
};

// The engine a new DMA context uses: SKIFF_DMA_ENGINE=inline|thread, else inline. An unknown value
// is logged once and ignored.
skiff_dma_engine_kind default_engine_kind();
const char *engine_kind_name(skiff_dma_engine_kind kind);

} // namespace skiff::core::dma
