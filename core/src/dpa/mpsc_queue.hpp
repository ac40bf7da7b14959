// An intrusive lock-free multi-producer / single-consumer queue (Vyukov's design): what an
// execution unit's run queue is made of. Producers (completion posts, notifications, kernel
// launches from any thread) push with one atomic exchange; the EU alone pops. No allocation.
#pragma once

#include <atomic>

namespace skiff::core::dpa {

struct QueueNode {
    std::atomic<QueueNode *> next{nullptr};
};

class MpscQueue {
  public:
    MpscQueue() : head_(&stub_), tail_(&stub_) {}
    MpscQueue(const MpscQueue &) = delete;
    MpscQueue &operator=(const MpscQueue &) = delete;

    void push(QueueNode *node) {
        node->next.store(nullptr, std::memory_order_relaxed);
        QueueNode *prev = head_.exchange(node, std::memory_order_acq_rel);
        prev->next.store(node, std::memory_order_release);
    }

    // nullptr when empty, or when a producer is between its two steps (it is visible soon).
    QueueNode *pop() {
        QueueNode *tail = tail_;
        QueueNode *next = tail->next.load(std::memory_order_acquire);
        if (tail == &stub_) {
            if (!next) return nullptr;
            tail_ = next;
            tail = next;
            next = next->next.load(std::memory_order_acquire);
        }
        if (next) {
            tail_ = next;
            return tail;
        }
        if (tail != head_.load(std::memory_order_acquire)) return nullptr;
        push(&stub_);
        next = tail->next.load(std::memory_order_acquire);
        if (next) {
            tail_ = next;
            return tail;
        }
        return nullptr;
    }

  private:
    std::atomic<QueueNode *> head_;
    QueueNode *tail_;
    QueueNode stub_;
};

} // namespace skiff::core::dpa
