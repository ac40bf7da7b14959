// The running configuration and the one way it changes: apply(next) compares the configuration
// in force with a new, already validated one and applies the difference to the live target —
// backends opened, subsystems / namespaces / hosts / listeners added and removed — or refuses it
// whole (nothing changed) with the reason. Every management request (skiff-ctl, SIGHUP reload)
// is an edit of the running configuration followed by apply(), so one validator and one
// applier serve them all. Control plane only, serialized by one mutex; the poll groups never
// wait for it (namespaces appear and disappear through Subsystem's lock-free slots, removed
// ones are destroyed by NamespaceRetirement).
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/core/status.hpp"
#include "skiff/dataplane/namespace_retirement.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/target/target.hpp"

// nlohmann::json declared only: the files that build or read documents include <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

#include <chrono>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace skiff::dataplane {

// The target limits a configuration's transport parameters ask for.
nvmeof::target::Limits limits_from(const config::TransportSettings &t);

class LiveConfig {
  public:
    // The target must have been created with limits_from(initial.transport()).
    LiveConfig(nvmeof::target::Target &target, config::Config initial);

    // Creates the initial backends, subsystems and namespaces (before the service starts).
    Status build();
    // Opens the initial listeners on the started service; from now on apply() may run.
    Status attach(TargetService &service);

    // Applies the difference to `next`, or refuses it whole. Returns what changed, one line each.
    // With ana_transition_ms > 0 every ANA state that changes passes through the "change" state
    // for that long first (finish_ana_transitions() completes it).
    Result<std::vector<std::string>> apply(const config::Config &next, uint32_t ana_transition_ms = 0);
    // Ends the ANA transitions whose time is up (call periodically, e.g. every 100 ms).
    size_t finish_ana_transitions();
    // The configuration in force.
    config::Config running() const;
    // The dedicated discovery listener's bound address (port 0 resolved), or nullopt when there
    // is none: what the mDNS announcement names, after every apply().
    std::optional<nvmeof::transport::ListenAddress> discovery_address() const;
    // Live state for skiff-ctl: listeners with bound addresses, controllers and their queues.
    nlohmann::json listeners_json() const;
    nlohmann::json controllers_json() const;
    // Connection and queue counts against the hostile-client limits (method `connections`).
    nlohmann::json connections_json() const;
    // The open device of the backend named `name` (nullptr when there is none): for runtime
    // controls that are not configuration, such as error injection.
    std::shared_ptr<nvmeof::target::BlockDevice> device(const std::string &name) const;
    // The target it manages, for read-only views (io_stats: the I/O counters).
    const nvmeof::target::Target &target() const { return target_; }
    // Destroys removed namespaces that nothing uses any more (call periodically).
    size_t reap();

  private:
    struct Listener {
        uint16_t port_id;
        config::ListenerConfig config;
    };
    Result<std::shared_ptr<nvmeof::target::Namespace>>
    make_namespace(const std::string &nqn, const config::NamespaceConfig &ns,
                   const std::shared_ptr<nvmeof::target::BlockDevice> &device) const;
    Result<std::shared_ptr<nvmeof::target::Subsystem>> make_subsystem(const config::SubsystemConfig &s) const;
    void remove_namespace(nvmeof::target::Subsystem &subsys, uint32_t nsid);
    nlohmann::json live_ana_json(const Listener &l) const;
    void grow_namespaces(const config::Config &next, const std::set<std::string> &grown,
                         const std::map<std::string, std::shared_ptr<nvmeof::target::BlockDevice>> &devices,
                         std::vector<std::string> &done);
    // Brings every listener's ANA states in line with `c` (mu_ held).
    void apply_ana(const config::Config &c, uint32_t transition_ms, std::vector<std::string> &done);
    // What a namespace that stays takes in place (mu_ held): new QoS limits and a new host list
    // (visible_hosts). New namespaces got both when they were made.
    void apply_in_place(const config::Config &cur, const config::Config &next,
                        std::vector<std::string> &done);
    // A group on its way through the change state to `final`.
    struct AnaTransition {
        uint16_t port_id;
        std::string nqn;
        uint32_t group;
        nvmeof::target::AnaState final;
        std::chrono::steady_clock::time_point due;
    };

    mutable std::mutex mu_;
    nvmeof::target::Target &target_;
    TargetService *service_ = nullptr;
    config::Config running_;
    std::map<std::string, std::shared_ptr<nvmeof::target::BlockDevice>> devices_; // by backend name
    std::vector<Listener> listeners_;
    std::optional<Listener> discovery_;
    std::unique_ptr<NamespaceRetirement> retirement_;
    std::vector<AnaTransition> transitions_;
};

} // namespace skiff::dataplane
