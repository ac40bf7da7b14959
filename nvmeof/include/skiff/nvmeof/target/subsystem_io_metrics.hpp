// A subsystem's per-namespace I/O metrics: the blocks of its live I/O queues plus the totals of
// the queues that are gone, so a reader never sees a counter go backwards when a host
// reconnects. Every count is also attributed to the host (hostnqn) of the queue's controller:
// a live block is kept with its host, and a retired one is folded into that host's totals as
// well. Attribution costs nothing per I/O: the queue's block is the host's share already.
// Control plane only (a mutex): queues attach at Connect and detach when destroyed; the metrics
// endpoint and the management socket read from their own threads.
#pragma once

#include "skiff/nvmeof/target/namespace_io_metrics.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

class SubsystemIoMetrics {
  public:
    // By nsid: only the namespaces that saw commands (a subsystem may have 1024 namespace ids;
    // a reader takes zeros for one that is missing).
    using Totals = std::map<uint32_t, NamespaceIoTotals>;
    // One host's namespaces, by nsid: only those it sent commands to.
    using HostTotals = Totals;
    // Hosts whose retired totals are kept by name; the counts of hosts beyond these go to
    // kOtherHosts, so a peer inventing host NQNs cannot grow the map without bound (a host
    // that did no I/O leaves nothing behind).
    static constexpr size_t kMaxHosts = 1024;
    static constexpr const char *kOtherHosts = "(other hosts)";

    // Live and retired, taken under one lock: the hosts' counts add up to the namespaces'.
    struct Snapshot {
        Totals namespaces{};
        std::map<std::string, HostTotals> hosts;
    };

    void attach(const QueueIoMetrics *queue, std::string hostnqn);
    // Folds the queue's counts into the retired totals (the namespace's and its host's); the
    // queue may free its block after.
    void detach(const QueueIoMetrics *queue);
    // Live and retired, summed under the lock: a queue is counted exactly once, live or retired.
    Totals totals() const;
    Snapshot snapshot() const;

  private:
    struct Live {
        const QueueIoMetrics *queue;
        std::string hostnqn;
    };
    HostTotals &retired_host(const std::string &hostnqn); // mu_ held

    mutable std::mutex mu_;
    std::vector<Live> live_;                          // guarded by mu_
    Totals retired_;                                  // guarded by mu_
    std::map<std::string, HostTotals> retired_hosts_; // guarded by mu_
};

} // namespace skiff::nvmeof::target
