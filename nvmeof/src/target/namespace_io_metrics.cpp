#include "skiff/nvmeof/target/namespace_io_metrics.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target {

IoKind io_kind(uint8_t opcode) {
    if (opcode == uint8_t(nvme_cmd_read)) return IoKind::kRead;
    if (opcode == uint8_t(nvme_cmd_write)) return IoKind::kWrite;
    return IoKind::kOther;
}

NamespaceIoTotals &NamespaceIoTotals::operator+=(const NamespaceIoTotals &o) {
    for (size_t k = 0; k < kIoKinds; ++k) {
        commands[k] += o.commands[k];
        latency[k] += o.latency[k];
    }
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    qos_throttled_ios += o.qos_throttled_ios;
    qos_throttled_ns += o.qos_throttled_ns;
    for (auto &[key, n] : o.errors) errors[key] += n;
    return *this;
}

void NamespaceIoMetrics::record(IoKind kind, uint64_t bytes, uint16_t error, uint64_t latency_ns) {
    const auto k = static_cast<size_t>(kind);
    single_writer_add(commands_[k], 1);
    if (kind == IoKind::kRead) single_writer_add(read_bytes_, bytes);
    if (kind == IoKind::kWrite) single_writer_add(write_bytes_, bytes);
    latency_[k].record(latency_ns);
    if (error) count_error(error);
}

void NamespaceIoMetrics::record_throttled(uint64_t waited_ns) {
    single_writer_add(qos_throttled_ios_, 1);
    single_writer_add(qos_throttled_ns_, waited_ns);
}

void NamespaceIoMetrics::count_error(uint16_t error) {
    for (size_t i = 0; i < kErrorSlots; ++i) {
        uint16_t s = error_status_[i].load(std::memory_order_relaxed);
        if (s == 0) {
            // Claim the slot: the status is published before the count that reads depend on.
            error_status_[i].store(error, std::memory_order_release);
            s = error;
        }
        if (s == error) {
            error_count_[i].store(error_count_[i].load(std::memory_order_relaxed) + 1,
                                  std::memory_order_release);
            return;
        }
    }
    single_writer_add(other_errors_, 1);
}

NamespaceIoTotals NamespaceIoMetrics::totals() const {
    NamespaceIoTotals t;
    for (size_t k = 0; k < kIoKinds; ++k) {
        t.commands[k] = relaxed(commands_[k]);
        t.latency[k] = latency_[k].totals();
    }
    t.read_bytes = relaxed(read_bytes_);
    t.write_bytes = relaxed(write_bytes_);
    t.qos_throttled_ios = relaxed(qos_throttled_ios_);
    t.qos_throttled_ns = relaxed(qos_throttled_ns_);
    for (size_t i = 0; i < kErrorSlots; ++i) {
        const uint64_t n = error_count_[i].load(std::memory_order_acquire);
        const uint16_t s = error_status_[i].load(std::memory_order_acquire);
        if (n && s) t.errors[s] += n;
    }
    if (uint64_t n = relaxed(other_errors_)) t.errors[kOtherErrors] += n;
    return t;
}

QueueIoMetrics::~QueueIoMetrics() {
    for (auto &c : chunks_) delete c.load(std::memory_order_acquire);
}

NamespaceIoMetrics &QueueIoMetrics::ns(uint32_t nsid) {
    const uint32_t i = nsid - 1;
    std::atomic<Chunk *> &slot = chunks_[i / kChunkNamespaces];
    Chunk *c = slot.load(std::memory_order_acquire);
    if (!c) {
        auto *made = new Chunk;
        if (slot.compare_exchange_strong(c, made, std::memory_order_acq_rel))
            c = made;
        else
            delete made; // another thread published one first: c holds it
    }
    return c->ns[i % kChunkNamespaces];
}

const NamespaceIoMetrics *QueueIoMetrics::find(uint32_t nsid) const {
    const uint32_t i = nsid - 1;
    const Chunk *c = chunks_[i / kChunkNamespaces].load(std::memory_order_acquire);
    return c ? &c->ns[i % kChunkNamespaces] : nullptr;
}

} // namespace skiff::nvmeof::target
