#include "skiff/nvmeof/target/target.hpp"

#include "skiff/core/log.hpp"

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

Port Target::add_port(Port port) {
    std::lock_guard lock(mu_);
    port.id = static_cast<uint16_t>(ports_.size() + 1);
    ports_.push_back(port);
    ++discovery_generation_;
    return port;
}

std::vector<Port> Target::ports() const {
    std::lock_guard lock(mu_);
    return ports_;
}

bool Target::port_exposes(const Port &port, const Subsystem &subsystem) const {
    return subsystem.is_discovery() || !port.discovery_only;
}

std::shared_ptr<Controller> Target::create_controller(std::shared_ptr<Subsystem> subsystem,
                                                      std::string hostnqn, std::array<uint8_t, 16> hostid,
                                                      uint32_t kato_ms, uint16_t port_id) {
    std::lock_guard lock(mu_);
    // Dynamic controller model: ids 1..0xFFEF, skipping ones still in use.
    for (int tries = 0; tries < 0xFFEF; ++tries) {
        uint16_t id = next_cntlid_;
        next_cntlid_ = next_cntlid_ >= 0xFFEF ? 1 : static_cast<uint16_t>(next_cntlid_ + 1);
        if (controllers_.count(id)) continue;
        auto ctrl = std::make_shared<Controller>(id, std::move(subsystem), std::move(hostnqn), hostid,
                                                 kato_ms, port_id, limits_);
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

uint64_t Target::discovery_generation() const {
    std::lock_guard lock(mu_);
    return discovery_generation_;
}

} // namespace skiff::nvmeof::target
