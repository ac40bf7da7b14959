// An I/O queue's share of the per-namespace metrics (namespace_io_metrics.hpp): its block is
// made at Connect when the target keeps I/O accounting (the metrics endpoint, or
// metrics.accounting for skiff-ctl stats), written at each completion on the queue's poll group,
// and folded into the subsystem's totals when the queue is destroyed. The block is attached with
// its controller's host NQN: one queue belongs to one host, so the block is that host's share and
// per-host counts cost nothing per I/O.
#include "skiff/nvmeof/target/monotonic_clock.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/target/target.hpp"

namespace skiff::nvmeof::target {

void Queue::start_metrics() {
    if (!target_.metrics_enabled() || qid_ == 0 || ctrl_->is_discovery() || metrics_) return;
    metrics_ = std::make_unique<QueueIoMetrics>();
    metrics_sink_ = ctrl_->subsystem().io_metrics();
    metrics_sink_->attach(metrics_.get(), ctrl_->hostnqn());
}

void Queue::stop_metrics() {
    if (metrics_sink_) metrics_sink_->detach(metrics_.get());
    metrics_sink_.reset();
}

void Queue::record_metrics(Request &req) {
    const uint64_t latency_ns = monotonic_ns() - req.received_ns;
    req.received_ns = 0;
    commands_in_flight_.store(commands_in_flight_.load(std::memory_order_relaxed) - 1,
                              std::memory_order_relaxed);
    if (!req.ns) return; // nothing to charge: no such namespace, or a broadcast Flush
    const IoKind kind = io_kind(req.cmd.opcode);
    const uint16_t st = req.status();
    const uint16_t error = st ? error_key(wire::Status::sct(st), wire::Status::sc(st)) : 0;
    // Bytes moved: only a command that succeeded moved its data.
    const uint64_t bytes = st == 0 && kind != IoKind::kOther ? req.data_len : 0;
    metrics_->ns(req.ns->nsid()).record(kind, bytes, error, latency_ns);
}

} // namespace skiff::nvmeof::target
