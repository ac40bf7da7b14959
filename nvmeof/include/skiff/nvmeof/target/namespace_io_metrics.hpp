// Per-namespace I/O metrics of one queue (the source of the Prometheus endpoint,
// dataplane/src/metrics, and of skiff-ctl stats):
// commands, bytes and latency by kind, and errors by NVMe status. A queue keeps one block per
// namespace it serves, made when it first serves that namespace (only when the target keeps I/O
// accounting) and written only by the queue's poll group at completion: relaxed single-writer
// atomics, no lock, no system call per I/O. SubsystemIoMetrics sums the live queues and those gone.
#pragma once

#include "skiff/nvmeof/target/latency_histogram.hpp"
#include "skiff/nvmeof/target/single_writer.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>

namespace skiff::nvmeof::target {

// Namespace ids run 1..kMaxNamespaces (Identify Controller NN), as nvmet's NVMET_MAX_NAMESPACES.
constexpr uint32_t kMaxNamespaces = 1024;

enum class IoKind : uint8_t { kRead, kWrite, kOther };
constexpr size_t kIoKinds = 3;
// The NVM opcode's kind: Read 02h, Write 01h, everything else (Flush, Compare, ...) other.
IoKind io_kind(uint8_t opcode);

// An error's key: Status Code Type in bits 10:8, Status Code in 7:0 (as nvme-cli prints a
// status); kOtherErrors counts the statuses beyond the ones a block has room for.
constexpr uint16_t kOtherErrors = 0xFFFF;
constexpr uint16_t error_key(uint8_t sct, uint8_t sc) {
    return static_cast<uint16_t>(((sct & 0x7) << 8) | sc);
}

// A snapshot of one namespace's counts (summed over queues).
struct NamespaceIoTotals {
    std::array<uint64_t, kIoKinds> commands{};
    uint64_t read_bytes = 0, write_bytes = 0;
    // QoS: commands that waited for their namespace's (or host's) limit, and the time they waited
    // (summed over commands: its rate is how many wait on average).
    uint64_t qos_throttled_ios = 0, qos_throttled_ns = 0;
    std::array<LatencyTotals, kIoKinds> latency{};
    std::map<uint16_t, uint64_t> errors; // by error_key(), or kOtherErrors

    NamespaceIoTotals &operator+=(const NamespaceIoTotals &o);
};

// One namespace as seen by one queue. Written by one thread, read by any.
class NamespaceIoMetrics {
  public:
    // A completed command: its kind, the bytes it moved (0 unless it succeeded), its status
    // (error_key, 0: success) and its latency from capsule received to response completed.
    void record(IoKind kind, uint64_t bytes, uint16_t error, uint64_t latency_ns);
    // A command that waited `waited_ns` for QoS tokens (when it goes to its backend).
    void record_throttled(uint64_t waited_ns);
    NamespaceIoTotals totals() const;

  private:
    void count_error(uint16_t error);

    // Distinct statuses one queue keeps per namespace; more go to kOtherErrors. A namespace
    // that fails in more than a few ways at once has a bigger problem than this label.
    static constexpr size_t kErrorSlots = 8;

    std::array<std::atomic<uint64_t>, kIoKinds> commands_{};
    std::atomic<uint64_t> read_bytes_{0}, write_bytes_{0};
    std::atomic<uint64_t> qos_throttled_ios_{0}, qos_throttled_ns_{0};
    std::array<LatencyHistogram, kIoKinds> latency_;
    // Slot i counts error_status_[i] (0: free). The writer fills a slot's status before its
    // first count; a reader that sees a count of a slot whose status it does not see yet skips it.
    std::array<std::atomic<uint16_t>, kErrorSlots> error_status_{};
    std::array<std::atomic<uint64_t>, kErrorSlots> error_count_{};
    std::atomic<uint64_t> other_errors_{0};
};

// The namespaces one I/O queue served. A block per namespace would be about 680 bytes, so 1024
// of them would cost every queue 680 KiB whatever it serves: the blocks come in chunks of 32
// (about 21 KiB), made the first time the queue completes a command of a namespace in that
// chunk. That first time allocates, once per chunk for the queue's life, as a poll group opens a
// namespace's channel on its first I/O; every later command finds its block with two loads.
class QueueIoMetrics {
  public:
    static constexpr uint32_t kChunkNamespaces = 32;

    QueueIoMetrics() = default;
    ~QueueIoMetrics();
    QueueIoMetrics(const QueueIoMetrics &) = delete;
    QueueIoMetrics &operator=(const QueueIoMetrics &) = delete;

    // The block of nsid (1..kMaxNamespaces: the caller holds a namespace, so it is in range),
    // made with its chunk if this is the chunk's first use. The queue's poll group writes it.
    NamespaceIoMetrics &ns(uint32_t nsid);
    // The block of nsid, or nullptr when the queue never served a namespace of its chunk. Any
    // thread (the metrics endpoint reads while the queue runs).
    const NamespaceIoMetrics *find(uint32_t nsid) const;

  private:
    struct Chunk {
        std::array<NamespaceIoMetrics, kChunkNamespaces> ns;
    };
    // Published with a release store (compare-exchange: a test may call ns() from two
    // threads), read with acquire; freed with the queue.
    std::array<std::atomic<Chunk *>, kMaxNamespaces / kChunkNamespaces> chunks_{};
};

} // namespace skiff::nvmeof::target
