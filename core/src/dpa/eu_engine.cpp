// Execution units: pinned workers with a spin-then-sleep idle loop.
#include "dpa/eu_engine.hpp"

#include "dpa/dpa_context.hpp"
#include "exec/futex.hpp"

#include <skiff/core/log.hpp>

#include <chrono>
#include <cstdlib>
#include <pthread.h>
#include <sched.h>

namespace skiff::core::dpa {
namespace {

// Longest a sleeping EU stays asleep without a wake (it then re-checks its queue and stop flag).
constexpr long kSleepSliceUs = 10000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) cpus.push_back(c);
        }
    }
    return cpus;
}

long spin_us_from_env() {
    const char *v = std::getenv("SKIFF_DPA_SPIN_US");
    if (!v || !*v) return 50;
    char *end = nullptr;
    long us = std::strtol(v, &end, 10);
    return (end && *end == '\0' && us >= 0 && us <= 1000000) ? us : 50;
}

} // namespace

void Eu::start(int cpu, long spin_us) {
    spin_us_ = spin_us;
    thread_ = std::thread([this] { loop(); });
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        pthread_setaffinity_np(thread_.native_handle(), sizeof(set), &set);
    }
    char name[16];
    snprintf(name, sizeof(name), "dpa-eu%u", index_);
    pthread_setname_np(thread_.native_handle(), name);
}

void Eu::stop() {
    if (!thread_.joinable()) return;
    stop_.store(true, std::memory_order_seq_cst);
    wake_seq_.fetch_add(1, std::memory_order_seq_cst);
    futex_wake_all(wake_seq_);
    thread_.join();
    trace_flush();
}

void Eu::push(Runnable *work) {
    queue_.push(work);
    // Pairs with the fence after the EU announces sleep and before it re-checks its queue: one
    // of the two sees the other. The push ends with a release store, which x86 and Arm may both
    // let a later load overtake; without the fence the EU could miss the work and we `sleeping`.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_relaxed)) {
        wake_seq_.fetch_add(1, std::memory_order_seq_cst);
        futex_wake_all(wake_seq_);
    }
}

bool Eu::run_one() {
    QueueNode *node = queue_.pop();
    if (!node) return false;
    // A fence on entry: the work's first loads (a namespace lookup, say) cannot move above the
    // increment, and it pairs with the reclaimer's fence between unpublishing and reading the
    // sequences (TargetService::quiescent_snapshot), so a reclaimer that saw an even sequence knows
    // this run sees the unpublished state. A seq_cst increment alone does not order the later
    // acquire loads on a weakly ordered CPU.
    run_seq_.fetch_add(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    static_cast<Runnable *>(node)->run(*this);
    run_seq_.fetch_add(1, std::memory_order_release);
    return true;
}

void Eu::loop() {
    using clock = std::chrono::steady_clock;
    const auto spin = std::chrono::microseconds(spin_us_);
    for (;;) {
        if (run_one()) continue;
        if (stop_.load(std::memory_order_acquire)) return;
        // Busy: spin for a while, so the next activation costs no syscall.
        auto idle_since = clock::now();
        bool found = false;
        for (unsigned i = 1; !found; ++i) {
            found = run_one();
            if (found || stop_.load(std::memory_order_relaxed)) break;
            cpu_relax();
            if ((i & 63) == 0 && clock::now() - idle_since >= spin) break;
        }
        if (found) continue;
        // Idle: sleep until a producer wakes us.
        uint32_t seen = wake_seq_.load(std::memory_order_seq_cst);
        sleeping_.store(true, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_seq_cst); // pairs with push(): see there
        if (run_one()) {
            sleeping_.store(false, std::memory_order_relaxed);
            continue;
        }
        if (!stop_.load(std::memory_order_seq_cst)) futex_wait(wake_seq_, seen, kSleepSliceUs);
        sleeping_.store(false, std::memory_order_relaxed);
    }
}

void Eu::trace(const TraceRecord &record) {
    if (num_traces_ == kTraceCapacity) trace_flush();
    traces_[num_traces_++] = record;
}

void Eu::trace_flush() {
    dpa_.write_traces(index_, traces_, num_traces_);
    num_traces_ = 0;
}

Engine::Engine(doca_dpa &dpa, unsigned num_eus) {
    std::vector<int> cpus = allowed_cpus();
    long spin_us = spin_us_from_env();
    for (unsigned i = 0; i < num_eus; ++i) {
        eus_.push_back(std::make_unique<Eu>(dpa, i));
    }
    for (unsigned i = 0; i < num_eus; ++i) {
        eus_[i]->start(cpus.empty() ? -1 : cpus[i % cpus.size()], spin_us);
    }
}

Engine::~Engine() {
    for (auto &eu : eus_) eu->stop();
}

} // namespace skiff::core::dpa
