// One polling thread: it owns some I/O queues, keeps --qd commands in flight on each, polls
// them all in a loop (no sleeping: the thread is the initiator's core), and resubmits the
// completions of one poll as one batch (one send system call, one timestamp). Buffers,
// timestamps and the histogram are allocated before the run; the loop itself allocates nothing.
#pragma once

#include "histogram.hpp"
#include "options.hpp"
#include "session.hpp"
#include "verify.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace skiff::perf {

using PerfClock = std::chrono::steady_clock;

// When the run counts: completions of commands submitted at or after `measure_start` and
// completed before `end` go into the statistics; nothing is submitted after `end`.
struct RunWindow {
    PerfClock::time_point measure_start;
    PerfClock::time_point end;
};

// Counters the progress display reads while the run goes (published once per loop iteration).
struct LiveCounters {
    std::atomic<uint64_t> ios{0};
    std::atomic<uint64_t> bytes{0};
    std::atomic<uint64_t> latency_ns{0};
};

// The slice of the namespace one queue works on, in units of --bs.
struct QueueSlice {
    uint64_t first_unit = 0;
    uint64_t units = 0;
};

// Per-unit state for --verify, shared by all queues (each touches only its own slice).
struct VerifyState {
    std::vector<uint32_t> generation; // last completed write, 0: none in this run
    std::vector<uint8_t> in_flight;
};

struct WorkerResult {
    LatencyHistogram latency;       // measured commands only
    uint64_t reads = 0, writes = 0; // measured
    uint64_t verified_blocks = 0;
    uint64_t all_ios = 0;                   // completed, ramp and drain included
    uint64_t all_reads = 0, all_writes = 0; // all_ios by kind: what the target served
    TransportCalls calls;                   // system calls for all_ios
    std::string error; // empty unless a command failed, the transport failed or verify found a bad block
};

struct QueueAssignment {
    IoQueue *queue = nullptr;
    QueueSlice slice;
    uint64_t seed = 0;
};

class Worker {
  public:
    Worker(const PerfOptions &o, const NamespaceGeometry &geo, std::vector<QueueAssignment> queues,
           VerifyState *verify);
    // Runs until window.end, then waits for everything in flight. `stop` ends it early.
    void run(const RunWindow &window, const std::atomic<bool> &stop);
    const WorkerResult &result() const { return result_; }
    LiveCounters &live() { return live_; }

  private:
    struct Slot {
        uint8_t *buf = nullptr;
        PerfClock::time_point submitted;
        uint64_t unit = 0;
        uint32_t gen = 0; // write: the generation stamped; 0 for reads
        bool write = false;
    };
    struct QueueState {
        QueueAssignment a;
        std::vector<Slot> slots;
        std::vector<uint32_t> ready; // slots to (re)submit after the current poll
        std::vector<IoCommand> batch;
        std::vector<IoCompletion> done;
        uint64_t rng = 0;
        uint64_t cursor = 0; // sequential patterns
        uint32_t next_gen = 1;
        uint32_t in_flight = 0;
    };

    uint64_t next_unit(QueueState &q);
    bool pick_write(QueueState &q);
    bool submit_ready(QueueState &q, uint32_t count);
    bool complete(QueueState &q, const IoCompletion &c, PerfClock::time_point now, const RunWindow &w);
    void loop(const RunWindow &window, const std::atomic<bool> &stop);
    bool fail(std::string why);

    PerfOptions o_;
    NamespaceGeometry geo_;
    uint32_t nlb_;
    BlockStamp stamp_;
    VerifyState *verify_;
    std::vector<QueueState> queues_;
    std::unique_ptr<uint8_t, void (*)(void *)> memory_{nullptr, nullptr};
    WorkerResult result_;
    LiveCounters live_;
    uint64_t local_ios_ = 0, local_bytes_ = 0, local_lat_ = 0;
};

// Splits `units` into `queues` contiguous slices.
std::vector<QueueSlice> split_units(uint64_t units, size_t queues);

} // namespace skiff::perf
