// Internal: the threaded DMA engine's hand-off between the application's thread and the shared
// worker, a fixed ring of task pointers with exactly one producer thread and one consumer thread.
//
// Why not boost::lockfree::spsc_queue: every push there reads the consumer's index, and that index
// sits on the cache line that also holds the ring's size and buffer pointer, so each push and each
// pop began with a load from a line the other core had just written. On a 64 KiB task the worker
// stalled on those loads for ~8 % of its time (perf, `BM_DmaMemcpy/thread/65536`). Here:
//   - each side keeps its own copy of the other side's index and reloads it only when its copy
//     says "full" (producer) or "empty" (consumer), so a steady stream costs one transfer of the
//     producer's index per batch the consumer takes, and none for the producer;
//   - the two indices and the read-only geometry live on three separate cache lines.
// The ring holds `capacity` pointers; the engine sizes it for every task of the context's pool, so
// a push never finds it full (push still checks, and returns how many it took).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace skiff::core::dma {

template <typename T>
class TaskRing {
  public:
    explicit TaskRing(size_t capacity) : mask_(round_up_pow2(capacity) - 1), slots_(new T[mask_ + 1]) {}
    TaskRing(const TaskRing &) = delete;
    TaskRing &operator=(const TaskRing &) = delete;

    // ---- producer thread
    // Appends up to n items; returns how many fit.
    size_t push(T const *items, size_t n) {
        size_t w = prod_.index.load(std::memory_order_relaxed);
        size_t room = mask_ + 1 - (w - prod_.peer);
        if (room < n) {
            prod_.peer = cons_.index.load(std::memory_order_acquire);
            room = mask_ + 1 - (w - prod_.peer);
            if (room < n) n = room;
        }
        for (size_t i = 0; i < n; ++i) slots_[(w + i) & mask_] = items[i];
        prod_.index.store(w + n, std::memory_order_release);
        return n;
    }
    bool push(T item) { return push(&item, 1) == 1; }

    // ---- consumer thread
    // Takes up to max items into out; returns how many. Items published after the consumer's
    // copy of the producer's index was taken come with a later call.
    size_t pop(T *out, size_t max) {
        size_t r = cons_.index.load(std::memory_order_relaxed);
        size_t avail = cons_.peer - r;
        if (avail == 0) {
            cons_.peer = prod_.index.load(std::memory_order_acquire);
            avail = cons_.peer - r;
            if (avail == 0) return 0;
        }
        size_t n = avail < max ? avail : max;
        for (size_t i = 0; i < n; ++i) out[i] = slots_[(r + i) & mask_];
        cons_.index.store(r + n, std::memory_order_release);
        return n;
    }
    // True when pop() would return something.
    bool readable() const {
        size_t r = cons_.index.load(std::memory_order_relaxed);
        if (cons_.peer != r) return true;
        cons_.peer = prod_.index.load(std::memory_order_acquire);
        return cons_.peer != r;
    }

  private:
    static size_t round_up_pow2(size_t n) {
        size_t p = 1;
        while (p < n) p <<= 1;
        return p;
    }

    // One side's line: its own index (written by it, read by the other side only when that side's
    // copy runs out) and its copy of the other side's index (private to it).
    struct alignas(64) Side {
        std::atomic<size_t> index{0};
        mutable size_t peer = 0;
    };

    alignas(64) const size_t mask_;
    const std::unique_ptr<T[]> slots_;
    Side prod_;
    Side cons_;
};

} // namespace skiff::core::dma
