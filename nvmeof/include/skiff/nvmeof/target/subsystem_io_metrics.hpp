// A subsystem's per-namespace I/O metrics: the blocks of its live I/O queues plus the totals of
// the queues that are gone, so a scrape never sees a counter go backwards when a host
// reconnects. Control plane only (a mutex): queues attach at Connect and detach when destroyed;
// the metrics endpoint reads totals() from its own thread.
#pragma once

#include "skiff/nvmeof/target/namespace_io_metrics.hpp"

#include <array>
#include <mutex>
#include <vector>

namespace skiff::nvmeof::target {

class SubsystemIoMetrics {
  public:
    using Totals = std::array<NamespaceIoTotals, kMaxNamespaces>; // index nsid - 1

    void attach(const QueueIoMetrics *queue);
    // Folds the queue's counts into the retired totals; the queue may free its block after.
    void detach(const QueueIoMetrics *queue);
    // Live and retired, summed under the lock: a queue is counted exactly once, live or retired.
    Totals totals() const;

  private:
    mutable std::mutex mu_;
    std::vector<const QueueIoMetrics *> live_; // guarded by mu_
    Totals retired_{};                         // guarded by mu_
};

} // namespace skiff::nvmeof::target
