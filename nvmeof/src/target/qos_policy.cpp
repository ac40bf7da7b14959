#include "skiff/nvmeof/target/qos_policy.hpp"

namespace skiff::nvmeof::target {

void QosBudget::set(const QosLimits &limits, uint64_t now_ns) {
    for (size_t i = 0; i < kQosBuckets; ++i)
        if (buckets_[i].rate() != limits.bucket_rate(i)) buckets_[i].set_rate(limits.bucket_rate(i), now_ns);
}

QosLimits QosBudget::limits() const {
    QosLimits l;
    for (size_t d = 0; d < kQosDirs; ++d) {
        l.ios_per_sec[d] = buckets_[d].rate();
        l.bytes_per_sec[d] = buckets_[kQosDirs + d].rate();
    }
    return l;
}

bool QosPolicy::set(const QosLimits &ns, const HostLimits &hosts, uint64_t now_ns) {
    std::lock_guard lock(mu_);
    size_t fresh = 0;
    for (auto &[nqn, limits] : hosts)
        if (limits.any() && !host_budget(nqn)) ++fresh;
    if (owned_.size() + fresh > kMaxQosHosts) return false;
    bool any = ns.any();
    ns_.set(ns, now_ns);
    for (auto &slot : owned_) {
        QosLimits want;
        for (auto &[nqn, limits] : hosts)
            if (nqn == slot->nqn) want = limits;
        slot->budget.set(want, now_ns);
        any |= want.any();
    }
    for (auto &[nqn, limits] : hosts) {
        if (!limits.any() || host_budget(nqn)) continue;
        auto slot = std::make_unique<HostSlot>();
        slot->nqn = nqn;
        slot->budget.set(limits, now_ns);
        hosts_[owned_.size()].store(slot.get(), std::memory_order_release);
        owned_.push_back(std::move(slot));
        any = true;
    }
    generation_.fetch_add(1, std::memory_order_acq_rel);
    active_.store(any, std::memory_order_relaxed);
    return true;
}

QosPolicy::HostLimits QosPolicy::host_limits() const {
    HostLimits out;
    for (auto &h : hosts_) {
        const HostSlot *slot = h.load(std::memory_order_acquire);
        if (!slot) break;
        if (QosLimits l = slot->budget.limits(); l.any()) out.emplace_back(slot->nqn, l);
    }
    return out;
}

QosBudget *QosPolicy::host_budget(const std::string &hostnqn) const {
    for (auto &h : hosts_) {
        HostSlot *slot = h.load(std::memory_order_acquire);
        if (!slot) return nullptr;
        if (slot->nqn == hostnqn) return &slot->budget;
    }
    return nullptr;
}

} // namespace skiff::nvmeof::target
