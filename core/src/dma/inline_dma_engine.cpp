#include "dma/inline_dma_engine.hpp"

#include "dma/dma_context.hpp"

namespace skiff::core::dma {

void InlineDmaEngine::start(uint32_t capacity) {
    queue_.assign(capacity, nullptr);
    head_ = count_ = 0;
}

void InlineDmaEngine::stop() {
    queue_.clear();
    queue_.shrink_to_fit();
    head_ = count_ = 0;
}

void InlineDmaEngine::submit(doca_dma_task_memcpy *task) {
    size_t at = head_ + count_;
    if (at >= queue_.size()) at -= queue_.size();
    queue_[at] = task;
    ++count_;
    // An application that armed the notification before this submit must still be woken: the
    // task is ready work for the next progress call.
    executor_.owner().submitted_ready_work();
}

doca_dma_task_memcpy *InlineDmaEngine::poll() {
    if (count_ == 0 || !executor_.may_run()) return nullptr;
    doca_dma_task_memcpy *task = queue_[head_];
    if (++head_ == queue_.size()) head_ = 0;
    --count_;
    executor_.execute(task);
    return task;
}

} // namespace skiff::core::dma
