#include "skiff/nvmeof/target/target.hpp"

#include "skiff/core/log.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

Target::Target(Limits limits)
    : limits_(limits),
      discovery_(std::make_shared<Subsystem>(kDiscoveryNqn, SubsystemKind::kDiscovery,
                                             SubsystemIdentity{"SKIFFDISC", "skiff discovery", "0.1"})) {}

Status Target::add_subsystem(std::shared_ptr<Subsystem> subsystem) {
    if (auto why = check_nqn(subsystem->nqn()); !why.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE, "subsystem NQN: " + why);
    std::lock_guard lock(mu_);
    if (subsystem->nqn() == kDiscoveryNqn)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "the discovery NQN is reserved; choose another subsystem NQN");
    for (auto &s : subsystems_)
        if (s->nqn() == subsystem->nqn())
            return make_error(DOCA_ERROR_ALREADY_EXIST, "subsystem " + subsystem->nqn() + " already exists");
    subsystems_.push_back(std::move(subsystem));
    ++discovery_generation_;
    return Status::success();
}

std::shared_ptr<Subsystem> Target::find_subsystem(std::string_view nqn) const {
    if (nqn == kDiscoveryNqn) return discovery_;
    std::lock_guard lock(mu_);
    for (auto &s : subsystems_)
        if (s->nqn() == nqn) return s;
    return nullptr;
}

std::vector<std::shared_ptr<Subsystem>> Target::subsystems() const {
    std::lock_guard lock(mu_);
    return subsystems_;
}

std::shared_ptr<Subsystem> Target::remove_subsystem(std::string_view nqn) {
    std::shared_ptr<Subsystem> out;
    std::vector<std::shared_ptr<Controller>> doomed;
    {
        std::lock_guard lock(mu_);
        auto it =
            std::find_if(subsystems_.begin(), subsystems_.end(), [&](auto &s) { return s->nqn() == nqn; });
        if (it == subsystems_.end()) return nullptr;
        out = *it;
        subsystems_.erase(it);
        ++discovery_generation_;
        for (auto &[id, ctrl] : controllers_)
            if (&ctrl->subsystem() == out.get()) doomed.push_back(ctrl);
    }
    for (auto &ctrl : doomed) ctrl->kill("subsystem removed");
    return out;
}

void Target::set_referrals(std::vector<Port> referrals) {
    std::lock_guard lock(mu_);
    if (referrals.size() == referrals_.size() &&
        std::equal(referrals.begin(), referrals.end(), referrals_.begin(), [](const Port &a, const Port &b) {
            return a.id == b.id && a.trtype == b.trtype && a.traddr == b.traddr && a.trsvcid == b.trsvcid;
        }))
        return;
    referrals_ = std::move(referrals);
    ++discovery_generation_;
}

void Target::note_discovery_change() {
    std::lock_guard lock(mu_);
    ++discovery_generation_;
}

std::vector<Port> Target::referrals() const {
    std::lock_guard lock(mu_);
    return referrals_;
}

Port Target::add_port(Port port) {
    std::lock_guard lock(mu_);
    port.id = next_port_id_++;
    ports_.push_back(port);
    ++discovery_generation_;
    return port;
}

std::optional<Port> Target::find_port(uint16_t id) const {
    std::lock_guard lock(mu_);
    for (auto &p : ports_)
        if (p.id == id) return p;
    return std::nullopt;
}

void Target::remove_port(uint16_t id) {
    std::lock_guard lock(mu_);
    std::erase_if(ports_, [&](const Port &p) { return p.id == id; });
    ++discovery_generation_;
}

Status Target::set_port_subsystems(uint16_t id, std::optional<std::vector<std::string>> nqns) {
    std::lock_guard lock(mu_);
    for (auto &p : ports_) {
        if (p.id != id) continue;
        p.subsystems = std::move(nqns);
        ++discovery_generation_;
        return Status::success();
    }
    return make_error(DOCA_ERROR_NOT_FOUND, "no port with id " + std::to_string(id));
}

std::vector<Port> Target::ports() const {
    std::lock_guard lock(mu_);
    return ports_;
}

bool Target::port_exposes(const Port &port, const Subsystem &subsystem) const {
    if (subsystem.is_discovery()) return true;
    if (port.discovery_only) return false;
    // A port that was removed while the queue stayed connected keeps what it had.
    auto now = find_port(port.id);
    return (now ? *now : port).lists(subsystem.nqn());
}

std::shared_ptr<Controller> Target::create_controller(std::shared_ptr<Subsystem> subsystem,
                                                      std::string hostnqn, std::array<uint8_t, 16> hostid,
                                                      uint32_t kato_ms, uint16_t port_id,
                                                      uint32_t max_transfer) {
    std::lock_guard lock(mu_);
    // Dynamic controller model: ids from the subsystem's range (1..0xFFEF by default), skipping
    // ones still in use, continuing after the last one handed out.
    uint16_t lo = subsystem->cntlid_min(), hi = subsystem->cntlid_max();
    uint16_t next = next_cntlid_ < lo || next_cntlid_ > hi ? lo : next_cntlid_;
    for (uint32_t tries = 0; tries <= uint32_t(hi - lo); ++tries) {
        uint16_t id = next;
        next = next >= hi ? lo : static_cast<uint16_t>(next + 1);
        next_cntlid_ = next;
        if (controllers_.count(id)) continue;
        Limits limits = limits_;
        if (max_transfer != 0 && max_transfer < limits.max_transfer) limits.max_transfer = max_transfer;
        auto ctrl = std::make_shared<Controller>(id, std::move(subsystem), std::move(hostnqn), hostid,
                                                 kato_ms, port_id, limits);
        // A discovery controller's host reads the log after Connect: changes count from now.
        if (ctrl->is_discovery()) ctrl->discovery_log_read(discovery_generation(), false);
        controllers_[id] = ctrl;
        return ctrl;
    }
    return nullptr;
}

std::shared_ptr<Controller> Target::find_controller(uint16_t cntlid) const {
    std::lock_guard lock(mu_);
    auto it = controllers_.find(cntlid);
    return it == controllers_.end() ? nullptr : it->second;
}

void Target::remove_controller(uint16_t cntlid) {
    std::lock_guard lock(mu_);
    controllers_.erase(cntlid);
}

size_t Target::controller_count() const {
    std::lock_guard lock(mu_);
    return controllers_.size();
}

size_t Target::enforce_host_access() {
    std::vector<std::shared_ptr<Controller>> doomed;
    {
        std::lock_guard lock(mu_);
        for (auto &[id, ctrl] : controllers_)
            if (!ctrl->dead() && !ctrl->subsystem().host_allowed(ctrl->hostnqn())) doomed.push_back(ctrl);
    }
    for (auto &ctrl : doomed) ctrl->kill("the host is no longer allowed on the subsystem");
    return doomed.size();
}

std::vector<std::shared_ptr<Controller>> Target::controllers() const {
    std::lock_guard lock(mu_);
    std::vector<std::shared_ptr<Controller>> out;
    for (auto &[id, ctrl] : controllers_) out.push_back(ctrl);
    return out;
}

void Target::set_host_auth(HostAuthMap entries) {
    std::lock_guard lock(mu_);
    host_auth_ = std::move(entries);
}

std::shared_ptr<const HostAuth> Target::host_auth(const std::string &hostnqn,
                                                  const std::string &subnqn) const {
    std::lock_guard lock(mu_);
    if (auto it = host_auth_.find({hostnqn, subnqn}); it != host_auth_.end()) return it->second;
    if (auto it = host_auth_.find({hostnqn, std::string()}); it != host_auth_.end()) return it->second;
    return nullptr;
}

std::shared_ptr<const HostAuth> Target::discovery_auth(const std::string &hostnqn) const {
    std::lock_guard lock(mu_);
    if (auto it = host_auth_.find({hostnqn, std::string(kDiscoveryNqn)}); it != host_auth_.end())
        return it->second;
    std::shared_ptr<const HostAuth> found;
    for (auto it = host_auth_.lower_bound({hostnqn, std::string()});
         it != host_auth_.end() && it->first.first == hostnqn; ++it) {
        if (it->first.second.empty()) return it->second; // the general entry sorts first
        if (!found)
            found = it->second;
        else if (!(found->host_key == it->second->host_key))
            return nullptr; // which secret would the host bring? none is asked for
    }
    return found;
}

} // namespace skiff::nvmeof::target
