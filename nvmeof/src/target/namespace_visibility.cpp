// Per-host namespace visibility (namespace_visibility.hpp): each controller keeps a bit per nsid
// its host must not see, so the I/O path pays one load for it; the subsystem sets those bits
// under its lock whenever a controller attaches, a namespace is added, or a namespace's host list
// changes. Controllers then notice the change through the namespace generation, like an added or
// removed namespace, and tell their hosts (Changed Namespace List, namespace-attribute-changed).
#include "skiff/nvmeof/target/namespace_visibility.hpp"

#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

bool NamespaceVisibility::sees(std::string_view hostnqn) const {
    return all_hosts || std::find(hosts.begin(), hosts.end(), hostnqn) != hosts.end();
}

void Subsystem::update_hidden(const Namespace &ns) {
    std::lock_guard lock(controllers_mu_);
    for (Controller *c : controllers_)
        c->hidden_namespaces().set(ns.nsid(), !ns.visibility().sees(c->hostnqn()));
}

void Subsystem::attach_controller(Controller *c) {
    // One lock over both steps: a namespace added or re-hidden meanwhile either sees this
    // controller in the list or is already in the slots read here.
    std::lock_guard lock(mu_);
    for (const auto &ns : owned_)
        c->hidden_namespaces().set(ns->nsid(), !ns->visibility().sees(c->hostnqn()));
    std::lock_guard controllers(controllers_mu_);
    controllers_.push_back(c);
}

Status Subsystem::set_namespace_visibility(uint32_t nsid, NamespaceVisibility visibility) {
    std::lock_guard lock(mu_);
    Namespace *ns = find_namespace(nsid);
    if (!ns) return make_error(DOCA_ERROR_NOT_FOUND, "no namespace " + std::to_string(nsid) + " in " + nqn_);
    if (ns->visibility() == visibility) return Status::success();
    ns->set_visibility(std::move(visibility));
    update_hidden(*ns);
    ns_generation_.fetch_add(1, std::memory_order_acq_rel);
    return Status::success();
}

} // namespace skiff::nvmeof::target
