#include "dma/shared_dma_worker.hpp"

#include "dma/threaded_dma_engine.hpp"
#include "exec/futex.hpp"

#include <algorithm>

namespace skiff::core::dma {

namespace {

// Idle sweeps before the worker goes to sleep: long enough to stay awake between back-to-back
// submissions, short enough not to burn a core when the application is quiet. Past kBusySpins the
// worker yields between sweeps, so that on a machine with fewer free cores than busy threads the
// submitting thread gets the CPU instead of watching the worker spin.
constexpr int kBusySpins = 256;
constexpr int kIdleSpins = 4096;
// The worker's first sleep after going idle, and the longest one (a safety net only).
constexpr long kFirstSleepUs = 50;
constexpr long kLongSleepUs = 100000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

} // namespace

SharedDmaWorker &SharedDmaWorker::instance() {
    // Never destroyed: a context still started at exit must not meet a joined or destroyed worker.
    static auto *worker = new SharedDmaWorker();
    return *worker;
}

void SharedDmaWorker::attach(ThreadedDmaEngine *engine) {
    std::lock_guard lock(mu_);
    List *current = engines_.load(std::memory_order_acquire);
    auto *next = current ? new List(*current) : new List();
    next->push_back(engine);
    publish(next);
    if (!thread_.joinable()) {
        quit_.store(false, std::memory_order_seq_cst);
        thread_ = std::thread([this] { run(); });
    }
}

void SharedDmaWorker::detach(ThreadedDmaEngine *engine) {
    std::lock_guard lock(mu_);
    List *current = engines_.load(std::memory_order_acquire);
    if (!current || std::find(current->begin(), current->end(), engine) == current->end()) return;
    auto *next = new List(*current);
    next->erase(std::remove(next->begin(), next->end(), engine), next->end());
    if (next->empty()) {
        delete next;
        next = nullptr;
    }
    publish(next);
    if (!next && thread_.joinable()) {
        quit_.store(true, std::memory_order_seq_cst);
        sleeping_.store(0, std::memory_order_seq_cst);
        futex_wake_all(sleeping_);
        thread_.join();
    }
}

// Swaps the list in, then frees the old one once no sweep can be reading it.
void SharedDmaWorker::publish(List *next) {
    List *old = engines_.exchange(next, std::memory_order_seq_cst);
    wait_for_sweep_end();
    delete old;
}

// The worker marks a sweep by making the counter odd (seq_cst) before it loads the list; we stored
// the new list (seq_cst) before loading the counter. So either the worker's sweep started after
// our store and reads the new list, or we see the counter odd and wait for that sweep to end.
void SharedDmaWorker::wait_for_sweep_end() {
    uint64_t seen = sweep_.load(std::memory_order_seq_cst);
    if ((seen & 1) == 0) return;
    while (sweep_.load(std::memory_order_seq_cst) == seen) std::this_thread::yield();
}

void SharedDmaWorker::wake_slow() {
    sleeping_.store(0, std::memory_order_relaxed);
    futex_wake_all(sleeping_);
}

void SharedDmaWorker::run() {
    int idle = 0;
    while (!quit_.load(std::memory_order_acquire)) {
        sweep_.fetch_add(1, std::memory_order_seq_cst); // odd: inside a sweep
        size_t ran = 0;
        if (const List *engines = engines_.load(std::memory_order_seq_cst))
            for (ThreadedDmaEngine *engine : *engines) ran += engine->run_queued();
        sweep_.fetch_add(1, std::memory_order_release); // even: the list may be freed
        if (ran != 0) {
            idle = 0;
        } else if (++idle < kBusySpins) {
            cpu_relax();
        } else if (idle < kIdleSpins) {
            std::this_thread::yield();
        } else {
            sleep_until_work();
            idle = 0;
        }
    }
}

bool SharedDmaWorker::any_queued(const List &engines) const {
    for (const ThreadedDmaEngine *engine : engines)
        if (engine->has_queued()) return true;
    return false;
}

void SharedDmaWorker::sleep_until_work() {
    sleeping_.store(1, std::memory_order_seq_cst);
    // A submitter that pushed just now may have read sleeping_ as 0 before our store reached it
    // (it uses no fence); its task is then queued but nobody woke us. The first sleep is short so
    // that such a task waits at most kFirstSleepUs; afterwards our flag is long visible and every
    // submitter wakes us, so we sleep until woken.
    auto nothing_to_do = [this] {
        if (quit_.load(std::memory_order_acquire)) return false;
        sweep_.fetch_add(1, std::memory_order_seq_cst);
        const List *engines = engines_.load(std::memory_order_seq_cst);
        bool queued = engines && any_queued(*engines);
        sweep_.fetch_add(1, std::memory_order_release);
        return !queued;
    };
    if (nothing_to_do()) futex_wait(sleeping_, 1, kFirstSleepUs);
    if (nothing_to_do()) futex_wait(sleeping_, 1, kLongSleepUs);
    sleeping_.store(0, std::memory_order_relaxed);
}

} // namespace skiff::core::dma
