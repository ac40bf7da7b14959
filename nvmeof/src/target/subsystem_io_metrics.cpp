#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {
namespace {

bool any_commands(const NamespaceIoTotals &t) {
    for (uint64_t n : t.commands)
        if (n) return true;
    // Errors, bytes and latency come with commands only; a throttled command is counted when it
    // goes to its backend, before it completes.
    return t.qos_throttled_ios != 0;
}

// Adds a queue's namespaces that saw commands to a host's totals.
void add_queue(SubsystemIoMetrics::HostTotals &host, const QueueIoMetrics &queue) {
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
        const NamespaceIoMetrics *m = queue.find(nsid);
        if (!m) continue;
        NamespaceIoTotals t = m->totals();
        if (any_commands(t)) host[nsid] += t;
    }
}

} // namespace

void SubsystemIoMetrics::attach(const QueueIoMetrics *queue, std::string hostnqn) {
    std::lock_guard lock(mu_);
    live_.push_back({queue, std::move(hostnqn)});
}

SubsystemIoMetrics::HostTotals &SubsystemIoMetrics::retired_host(const std::string &hostnqn) {
    if (retired_hosts_.size() >= kMaxHosts && !retired_hosts_.count(hostnqn))
        return retired_hosts_[kOtherHosts];
    return retired_hosts_[hostnqn];
}

void SubsystemIoMetrics::detach(const QueueIoMetrics *queue) {
    std::lock_guard lock(mu_);
    auto it = std::find_if(live_.begin(), live_.end(), [&](const Live &l) { return l.queue == queue; });
    if (it == live_.end()) return;
    const std::string hostnqn = std::move(it->hostnqn);
    live_.erase(it);
    // One read of each block: what goes into the namespace's totals goes into the host's too.
    HostTotals folded;
    add_queue(folded, *queue);
    if (folded.empty()) return; // no I/O: nothing to keep, not even the host's name
    HostTotals &host = retired_host(hostnqn);
    for (auto &[nsid, t] : folded) {
        retired_[nsid] += t;
        host[nsid] += t;
    }
}

SubsystemIoMetrics::Totals SubsystemIoMetrics::totals() const {
    std::lock_guard lock(mu_);
    Totals out = retired_;
    for (const Live &l : live_) add_queue(out, *l.queue);
    return out;
}

SubsystemIoMetrics::Snapshot SubsystemIoMetrics::snapshot() const {
    std::lock_guard lock(mu_);
    Snapshot s{retired_, retired_hosts_};
    for (const Live &l : live_) {
        // Read once: the namespace's sum and the host's get the same values.
        HostTotals q;
        add_queue(q, *l.queue);
        if (q.empty()) continue;
        HostTotals &host = s.hosts[l.hostnqn];
        for (auto &[nsid, t] : q) {
            s.namespaces[nsid] += t;
            host[nsid] += t;
        }
    }
    return s;
}

} // namespace skiff::nvmeof::target
