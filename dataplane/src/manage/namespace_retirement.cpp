#include "skiff/dataplane/namespace_retirement.hpp"

#include "skiff/core/log.hpp"

#include <algorithm>

namespace skiff::dataplane {

void NamespaceRetirement::retire(std::shared_ptr<nvmeof::target::Namespace> ns) {
    std::vector<uint64_t> snapshot = service_ ? service_->quiescent_snapshot() : std::vector<uint64_t>{};
    retired_.push_back({std::move(ns), std::move(snapshot)});
}

size_t NamespaceRetirement::reap() {
    std::erase_if(retired_, [&](Retired &r) {
        if (r.ns->pinned() != 0) {
            // Still in use: restart the grace period from now.
            if (service_) r.snapshot = service_->quiescent_snapshot();
            return false;
        }
        if (service_ && !service_->passed(r.snapshot)) return false;
        skiff::log::get("manage")->debug("namespace {} ({} backend) destroyed after removal", r.ns->nsid(),
                                         r.ns->device().kind());
        return true;
    });
    return retired_.size();
}

} // namespace skiff::dataplane
