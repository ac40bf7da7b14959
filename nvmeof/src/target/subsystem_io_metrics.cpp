#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

void SubsystemIoMetrics::attach(const QueueIoMetrics *queue) {
    std::lock_guard lock(mu_);
    live_.push_back(queue);
}

void SubsystemIoMetrics::detach(const QueueIoMetrics *queue) {
    std::lock_guard lock(mu_);
    auto it = std::find(live_.begin(), live_.end(), queue);
    if (it == live_.end()) return;
    live_.erase(it);
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) retired_[nsid - 1] += queue->ns(nsid).totals();
}

SubsystemIoMetrics::Totals SubsystemIoMetrics::totals() const {
    std::lock_guard lock(mu_);
    Totals out = retired_;
    for (const QueueIoMetrics *q : live_)
        for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) out[nsid - 1] += q->ns(nsid).totals();
    return out;
}

} // namespace skiff::nvmeof::target
