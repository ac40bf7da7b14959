#include "skiff/nvmeof/target/subsystem.hpp"

#include <algorithm>
#include <cctype>

namespace skiff::nvmeof::target {

Subsystem::Subsystem(std::string nqn, SubsystemKind kind, SubsystemIdentity identity)
    : nqn_(std::move(nqn)), kind_(kind), identity_(std::move(identity)) {}

Status Subsystem::add_namespace(std::shared_ptr<Namespace> ns) {
    if (is_discovery())
        return make_error(DOCA_ERROR_NOT_PERMITTED, "the discovery subsystem has no namespaces");
    uint32_t nsid = ns->nsid();
    if (nsid == 0 || nsid > kMaxNamespaces)
        return make_error(DOCA_ERROR_INVALID_VALUE, "namespace id " + std::to_string(nsid) +
                                                        " is out of range: use 1.." +
                                                        std::to_string(kMaxNamespaces));
    std::lock_guard lock(mu_);
    if (slots_[nsid - 1].load()) {
        return make_error(DOCA_ERROR_ALREADY_EXIST,
                          "namespace id " + std::to_string(nsid) + " is already used in " + nqn_);
    }
    owned_.push_back(ns);
    update_hidden(*ns); // before it is published: a host that must not see it never finds it
    slots_[nsid - 1].store(ns.get(), std::memory_order_release);
    ns_generation_.fetch_add(1, std::memory_order_acq_rel);
    return Status::success();
}

std::shared_ptr<Namespace> Subsystem::remove_namespace(uint32_t nsid) {
    if (nsid == 0 || nsid > kMaxNamespaces) return nullptr;
    std::lock_guard lock(mu_);
    Namespace *raw = slots_[nsid - 1].load();
    if (!raw) return nullptr;
    slots_[nsid - 1].store(nullptr, std::memory_order_release);
    ns_generation_.fetch_add(1, std::memory_order_acq_rel);
    auto it = std::find_if(owned_.begin(), owned_.end(), [&](auto &p) { return p.get() == raw; });
    std::shared_ptr<Namespace> out = *it;
    owned_.erase(it);
    return out;
}

Status Subsystem::grow_namespace(uint32_t nsid, uint64_t size_bytes) {
    std::lock_guard lock(mu_);
    Namespace *ns = find_namespace(nsid);
    if (!ns) return make_error(DOCA_ERROR_NOT_FOUND, "no namespace " + std::to_string(nsid) + " in " + nqn_);
    const uint64_t before = ns->attr_generation();
    if (Status st = ns->grow_to(size_bytes); !st) return st;
    if (ns->attr_generation() != before) ns_generation_.fetch_add(1, std::memory_order_acq_rel);
    return Status::success();
}

PortAna &Subsystem::port_ana(uint16_t port_id) {
    std::lock_guard lock(mu_);
    auto &slot = port_ana_[port_id];
    if (!slot) slot = std::make_unique<PortAna>();
    return *slot;
}

bool Subsystem::set_ana_state(uint16_t port_id, uint32_t group, AnaState state) {
    PortAna &ana = port_ana(port_id);
    std::lock_guard lock(mu_); // one writer at a time: set() is a load, a store and two adds
    return ana.set(group, state);
}

std::vector<std::shared_ptr<Namespace>> Subsystem::namespaces() const {
    std::lock_guard lock(mu_);
    auto out = owned_;
    std::sort(out.begin(), out.end(), [](auto &a, auto &b) { return a->nsid() < b->nsid(); });
    return out;
}

void Subsystem::allow_host(const std::string &hostnqn) {
    std::lock_guard lock(mu_);
    if (std::find(allowed_hosts_.begin(), allowed_hosts_.end(), hostnqn) == allowed_hosts_.end())
        allowed_hosts_.push_back(hostnqn);
}

bool Subsystem::disallow_host(const std::string &hostnqn) {
    std::lock_guard lock(mu_);
    auto it = std::find(allowed_hosts_.begin(), allowed_hosts_.end(), hostnqn);
    if (it == allowed_hosts_.end()) return false;
    allowed_hosts_.erase(it);
    return true;
}

std::vector<std::string> Subsystem::allowed_hosts() const {
    std::lock_guard lock(mu_);
    return allowed_hosts_;
}

bool Subsystem::host_allowed(std::string_view hostnqn) const {
    if (allow_any_host_ || is_discovery()) return true;
    if (hostnqn.empty()) return false; // an anonymous host is never one of a list
    std::lock_guard lock(mu_);
    return std::find(allowed_hosts_.begin(), allowed_hosts_.end(), hostnqn) != allowed_hosts_.end();
}

std::string check_nqn(std::string_view nqn) {
    if (nqn.empty()) return "the NQN is empty; expected \"nqn.yyyy-mm.reverse.domain:name\"";
    if (nqn.size() > 223)
        return "the NQN is " + std::to_string(nqn.size()) + " bytes long; at most 223 are allowed";
    if (nqn == kDiscoveryNqn) return {};
    constexpr std::string_view kUuidPrefix = "nqn.2014-08.org.nvmexpress:uuid:";
    if (nqn.starts_with(kUuidPrefix)) {
        if (nqn.size() != kUuidPrefix.size() + 36)
            return "a UUID NQN needs a 36-character UUID after \"uuid:\"";
        return {};
    }
    // nqn.yyyy-mm.<reverse domain>[:<anything>]
    auto digits = [&](size_t pos, size_t n) {
        if (nqn.size() < pos + n) return false;
        return std::all_of(nqn.begin() + pos, nqn.begin() + pos + n, [](char c) { return std::isdigit(c); });
    };
    if (!nqn.starts_with("nqn.") || !digits(4, 4) || nqn.size() < 12 || nqn[8] != '-' || !digits(9, 2) ||
        nqn[11] != '.')
        return "\"" + std::string(nqn) + "\" does not start with \"nqn.yyyy-mm.\"";
    if (nqn.size() == 12 || nqn[12] == ':' || nqn[12] == '.') return "the NQN has no domain after the date";
    return {};
}

void Subsystem::detach_controller(Controller *c) {
    std::lock_guard lock(controllers_mu_);
    std::erase(controllers_, c);
}

} // namespace skiff::nvmeof::target
