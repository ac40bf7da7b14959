// The emulated execution units (EUs) of one DPA process: worker threads pinned to cores, each with
// a lock-free run queue of Runnables (a DPA thread to activate, one rank of a launched kernel, an
// RPC). An idle EU spins briefly (SKIFF_DPA_SPIN_US, default 50 us) and then sleeps on a futex; a
// producer makes the wake syscall only when the EU sleeps, so activation on a busy EU is
// syscall-free.
#pragma once

#include "dpa/mpsc_queue.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

struct doca_dpa;

namespace skiff::core::dpa {

class Eu;

// Work an EU runs.
struct Runnable : QueueNode {
    virtual ~Runnable() = default;
    virtual void run(Eu &eu) = 0;
};

// One trace record (doca_dpa_dev_trace).
struct TraceRecord {
    uint64_t args[5];
};

class Eu {
  public:
    Eu(doca_dpa &dpa, unsigned index) : dpa_(dpa), index_(index) {}
    ~Eu() { stop(); }
    Eu(const Eu &) = delete;
    Eu &operator=(const Eu &) = delete;

    void start(int cpu, long spin_us);
    void stop();
    // From any thread.
    void push(Runnable *work);
    unsigned index() const { return index_; }
    // Odd while this EU runs a piece of work, advanced by two per piece: a grace period
    // (skiff/core/dpa_quiescence.hpp) has passed for an EU that was not running at a snapshot
    // or has moved past it.
    uint64_t run_seq() const { return run_seq_.load(std::memory_order_seq_cst); }
    // How long this EU keeps spinning after its last work (SKIFF_DPA_SPIN_US).
    long spin_us() const { return spin_us_; }
    doca_dpa &dpa() { return dpa_; }

    // Trace buffer of this EU (device code on this EU only).
    static constexpr size_t kTraceCapacity = 256;
    void trace(const TraceRecord &record);
    void trace_flush();

  private:
    void loop();
    bool run_one();

    doca_dpa &dpa_;
    unsigned index_;
    long spin_us_ = 50;
    MpscQueue queue_;
    std::atomic<uint32_t> wake_seq_{0};
    std::atomic<bool> sleeping_{false};
    std::atomic<bool> stop_{false};
    std::atomic<uint64_t> run_seq_{0};
    std::thread thread_;
    TraceRecord traces_[kTraceCapacity];
    size_t num_traces_ = 0;
};

class Engine {
  public:
    Engine(doca_dpa &dpa, unsigned num_eus);
    ~Engine();
    unsigned size() const { return static_cast<unsigned>(eus_.size()); }
    Eu &eu(unsigned eu_id) { return *eus_[eu_id % eus_.size()]; }
    // Round robin, for work without affinity.
    Eu &next() { return eu(next_.fetch_add(1, std::memory_order_relaxed)); }
    const Eu &eu(unsigned eu_id) const { return *eus_[eu_id % eus_.size()]; }

  private:
    std::vector<std::unique_ptr<Eu>> eus_;
    std::atomic<unsigned> next_{0};
};

} // namespace skiff::core::dpa
