// A namespace's QoS: its own limits and those of named hosts on it, as shared token buckets
// (qos_bucket.hpp) that every poll group draws from. The data path asks active() once per I/O
// command (one relaxed load: the only cost of QoS on a namespace without limits); the queues'
// throttles (qos_throttle.hpp) do the rest.
//
// Host budgets are made on the control plane and kept for the namespace's life (at most
// kMaxQosHosts hosts): a queue may hold a pointer to one without any lock. Clearing a host's
// limits sets its rates to 0; its slot stays for when it is limited again.
#pragma once

#include "skiff/nvmeof/target/qos_bucket.hpp"
#include "skiff/nvmeof/target/qos_limits.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace skiff::nvmeof::target {

// Six shared buckets: one limit set.
class QosBudget {
  public:
    void set(const QosLimits &limits, uint64_t now_ns);
    QosLimits limits() const;
    QosSharedBucket &bucket(size_t i) { return buckets_[i]; }

  private:
    std::array<QosSharedBucket, kQosBuckets> buckets_;
};

class QosPolicy {
  public:
    static constexpr size_t kMaxQosHosts = 64;
    using HostLimits = std::vector<std::pair<std::string, QosLimits>>;

    // True when any limit (namespace or host) is set.
    bool active() const { return active_.load(std::memory_order_relaxed); }
    // Bumped by every set(): queues look their host's budget up again.
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

    // Control plane: replaces every limit. Hosts not in `hosts` lose theirs. Returns false (and
    // changes nothing) when more than kMaxQosHosts hosts would have a budget.
    bool set(const QosLimits &ns, const HostLimits &hosts, uint64_t now_ns);
    QosLimits limits() const { return ns_.limits(); }
    HostLimits host_limits() const;

    QosBudget &budget() { return ns_; }
    // The budget of `hostnqn`, or nullptr when it has none (any thread; no lock).
    QosBudget *host_budget(const std::string &hostnqn) const;

  private:
    struct HostSlot {
        std::string nqn; // fixed once published
        QosBudget budget;
    };

    // First: the one field every I/O reads, on the namespace's hot cache line (namespace.hpp).
    std::atomic<bool> active_{false};
    std::atomic<uint64_t> generation_{0};
    std::mutex mu_; // control plane only
    QosBudget ns_;
    std::array<std::atomic<HostSlot *>, kMaxQosHosts> hosts_{}; // published in order
    std::vector<std::unique_ptr<HostSlot>> owned_;              // guarded by mu_
};

} // namespace skiff::nvmeof::target
