#include "dma/threaded_dma_engine.hpp"

#include "dma/dma_context.hpp"
#include "dma/shared_dma_worker.hpp"
#include "mem/buf.hpp"

namespace skiff::core::dma {

namespace {

// Copies at least this big are handed back on their own, without waiting for their batch.
constexpr size_t kReturnAtOnceBytes = 4096;
// Most tasks the worker takes from one engine per sweep (the others get their turn between).
constexpr size_t kBatch = 32;

// The lines the worker is about to read of a task the PE's thread wrote last: the task and its two
// buf descriptors (the application resets the destination's data length before resubmitting).
// Asked for while the previous copy runs, they are in this core's cache when the task's turn
// comes, instead of costing a transfer from the other core each.
inline void prefetch_task(const doca_dma_task_memcpy *task) {
    __builtin_prefetch(task->src);
    __builtin_prefetch(task->dst, 1);
}

} // namespace

void ThreadedDmaEngine::start(uint32_t capacity) {
    stop();
    submitted_ = std::make_unique<Ring>(capacity);
    completed_ = std::make_unique<Ring>(capacity);
    harvested_next_ = harvested_count_ = 0;
    SharedDmaWorker::instance().attach(this);
    attached_ = true;
}

void ThreadedDmaEngine::stop() {
    if (!attached_) return;
    SharedDmaWorker::instance().detach(this);
    attached_ = false;
    submitted_.reset();
    completed_.reset();
}

void ThreadedDmaEngine::submit(doca_dma_task_memcpy *task) {
    submitted_->push(task);
    SharedDmaWorker::instance().wake();
}

doca_dma_task_memcpy *ThreadedDmaEngine::poll() {
    if (harvested_next_ == harvested_count_) {
        if (!completed_) return nullptr;
        harvested_count_ = completed_->pop(harvested_, kHarvest);
        harvested_next_ = 0;
        if (harvested_count_ == 0) return nullptr;
    }
    return harvested_[harvested_next_++];
}

// Takes every queued task (up to kBatch) at once: one read of the ring's shared indices per batch.
// Small copies go back together after the batch; a large copy goes back as soon as it is done (with
// the small ones before it), so that the application reuses it while the rest of the batch runs.
// The progress engine is told once per batch (that check costs a fence). Every task's lines are
// prefetched at the batch's start, each task's bufs while the task before it copies. A held engine
// runs nothing, unless it is flushing (a stop must always complete).
size_t ThreadedDmaEngine::run_queued() {
    if (!executor_.may_run()) return 0;
    doca_dma_task_memcpy *batch[kBatch];
    size_t n = submitted_->pop(batch, kBatch);
    if (n == 0) return 0;
    for (size_t i = 1; i < n; ++i) __builtin_prefetch(batch[i], 1);
    size_t returned = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i + 1 < n) prefetch_task(batch[i + 1]);
        if (executor_.execute(batch[i]) >= kReturnAtOnceBytes) {
            completed_->push(batch + returned, i + 1 - returned);
            returned = i + 1;
        }
    }
    completed_->push(batch + returned, n - returned);
    executor_.owner().engine_completed();
    return n;
}

} // namespace skiff::core::dma
