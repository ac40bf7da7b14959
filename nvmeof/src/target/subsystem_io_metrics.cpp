#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {
namespace {

bool any_commands(const NamespaceIoTotals &t) {
    for (uint64_t n : t.commands)
        if (n) return true;
    return false; // errors, bytes and latency come with commands only
}

// Adds a queue's namespaces that saw commands to a host's totals.
void add_queue(SubsystemIoMetrics::HostTotals &host, const QueueIoMetrics &queue) {
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
        NamespaceIoTotals t = queue.ns(nsid).totals();
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
        retired_[nsid - 1] += t;
        host[nsid] += t;
    }
}

SubsystemIoMetrics::Totals SubsystemIoMetrics::totals() const {
    std::lock_guard lock(mu_);
    Totals out = retired_;
    for (const Live &l : live_)
        for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) out[nsid - 1] += l.queue->ns(nsid).totals();
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
            s.namespaces[nsid - 1] += t;
            host[nsid] += t;
        }
    }
    return s;
}

} // namespace skiff::nvmeof::target
