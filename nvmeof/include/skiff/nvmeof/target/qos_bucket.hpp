// The token buckets of QoS, in two layers so that no I/O touches a cross-core atomic:
//
// - QosSharedBucket: one per limit of a namespace (or host on a namespace), shared by every poll
//   group. It keeps a rate and one atomic "paid until" time (GCRA, the generic cell rate
//   algorithm): reserving n tokens moves that time n / rate seconds on and answers when they are
//   due (the old "paid until"). Reservations line up in time in the order they were made, so
//   queues that wait for the same limit take turns whatever order their poll groups ask in. The
//   time never lags now by more than the burst: an idle bucket saves at most kQosBurstNs worth
//   of tokens. One large I/O beyond the burst still goes; the next reservation waits its time.
// - QosLocalTokens: one queue's tokens, single writer. When they run short the queue reserves a
//   chunk of about kQosChunkNs worth from the shared bucket (one compare-and-swap per chunk, not
//   per I/O) and may spend it once due. A queue holds one reservation at a time, so it is never
//   more than one chunk ahead. One queue at any depth can use the whole rate; queues on other
//   poll groups share it.
//
// Every function takes the time as an argument (monotonic ns), so tests drive the clock.
#pragma once

#include <atomic>
#include <cstdint>

namespace skiff::nvmeof::target {

// Tokens an idle bucket may save: a burst after idling is at most this long at the full rate
// (a 1 s measurement is off by at most 2 %).
constexpr uint64_t kQosBurstNs = 20'000'000;
// What a queue reserves at once (plus what the I/O at hand lacks).
constexpr uint64_t kQosChunkNs = 1'000'000;

class QosSharedBucket {
  public:
    // Tokens per second; 0: no limit. Control plane. A new rate forgets the old one's
    // reservations (queues drop theirs, see QosLocalTokens), so raising a limit helps at once.
    void set_rate(uint64_t per_sec, uint64_t now_ns);
    uint64_t rate() const { return rate_.load(std::memory_order_relaxed); }
    // Changes with every set_rate().
    uint32_t epoch() const { return epoch_.load(std::memory_order_acquire); }

    // Reserves `tokens` at `now_ns` (rate must not be 0): the time they are due, now_ns or later.
    uint64_t reserve(uint64_t tokens, uint64_t now_ns);

    // How long `tokens` take at `rate` (rounded up: never faster than the limit).
    static uint64_t cost_ns(uint64_t tokens, uint64_t rate);

  private:
    std::atomic<uint64_t> rate_{0};
    std::atomic<uint64_t> paid_until_ns_{0};
    std::atomic<uint32_t> epoch_{0};
};

// A queue's own tokens of one shared bucket (single writer: the queue's thread).
struct QosLocalTokens {
    uint64_t tokens = 0;
    uint64_t due_ns = 0; // the tokens may be spent from this time on
    uint32_t epoch = 0;  // the shared bucket's epoch they were reserved in

    // True when `need` tokens are here and due, reserving a chunk from `shared` if they were not;
    // false when they are not due yet: *wait_ns says for how long (ask again then).
    bool ensure(QosSharedBucket &shared, uint64_t need, uint64_t now_ns, uint64_t *wait_ns);
    // Spends what ensure() made sure of.
    void spend(uint64_t n) { tokens -= n; }
};

} // namespace skiff::nvmeof::target
