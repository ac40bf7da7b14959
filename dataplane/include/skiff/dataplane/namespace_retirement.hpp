// Safe destruction of removed namespaces. The command layer keeps raw Namespace pointers in
// requests (no reference count per I/O), so a namespace taken out of its subsystem lives on
// here until (1) no request pins it and (2) every poll group has passed a quiescent point since
// the pins were last seen non-zero — after that no code on any group can still touch it.
// Control plane only; the data path takes no lock for any of this.
#pragma once

#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/target/namespace.hpp"

#include <memory>
#include <vector>

namespace skiff::dataplane {

class NamespaceRetirement {
  public:
    explicit NamespaceRetirement(const TargetService *service) : service_(service) {}

    void retire(std::shared_ptr<nvmeof::target::Namespace> ns);
    // Destroys what is safe to destroy; returns how many are still waiting.
    size_t reap();
    size_t pending() const { return retired_.size(); }

  private:
    struct Retired {
        std::shared_ptr<nvmeof::target::Namespace> ns;
        std::vector<uint64_t> snapshot; // poll group passes when last seen pinned (or retired)
    };
    const TargetService *service_;
    std::vector<Retired> retired_;
};

} // namespace skiff::dataplane
