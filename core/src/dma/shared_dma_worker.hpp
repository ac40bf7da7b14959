// The process's one DMA worker thread, shared by every context that uses the threaded engine
// (instead of a thread per context, which on a small machine competed with the application for
// its cores). It exists while at least one threaded context is started. It sweeps the attached
// engines, runs what each has queued, and when idle spins briefly, yields, then sleeps on a futex;
// submitters wake it only then, without a memory fence on their side: a wake-up lost at the
// instant it falls asleep is caught by its first, short sleep (see sleep_until_work()).
//
// The list of attached engines is read by the worker without a lock: attach/detach publish a new
// list and wait until the worker is outside any sweep that could still see the old one (the
// sweep counter is odd during a sweep), so a detached engine is never touched again.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace skiff::core::dma {

class ThreadedDmaEngine;

class SharedDmaWorker {
  public:
    static SharedDmaWorker &instance();

    // ctx start: the worker serves `engine` from now on (and starts with the first engine).
    void attach(ThreadedDmaEngine *engine);
    // ctx back to IDLE: returns once the worker will never touch `engine` again (and stops with the
    // last one).
    void detach(ThreadedDmaEngine *engine);
    // Submitting thread: wakes the worker if it sleeps (one relaxed load otherwise).
    void wake() {
        if (sleeping_.load(std::memory_order_relaxed) != 0) wake_slow();
    }

  private:
    using List = std::vector<ThreadedDmaEngine *>;

    SharedDmaWorker() = default;
    void publish(List *next);
    void wait_for_sweep_end();
    void run();
    bool any_queued(const List &engines) const;
    void sleep_until_work();
    void wake_slow();

    std::mutex mu_; // attach/detach only (ctx start and stop)
    std::thread thread_;
    std::atomic<List *> engines_{nullptr};
    std::atomic<uint64_t> sweep_{0}; // odd while the worker reads engines_
    std::atomic<bool> quit_{false};
    std::atomic<uint32_t> sleeping_{0};
};

} // namespace skiff::core::dma
