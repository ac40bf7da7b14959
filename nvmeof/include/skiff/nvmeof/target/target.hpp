// The target: its subsystems (including discovery), its ports, and the live controllers.
// Everything here is control plane (Connect, discovery, teardown), guarded by one mutex; the
// per-I/O path never comes here.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/admission.hpp"
#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/host_auth.hpp"
#include "skiff/nvmeof/target/limits.hpp"
#include "skiff/nvmeof/target/port.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/tls/psk_store.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

class Target {
  public:
    explicit Target(Limits limits = {});

    const Limits &limits() const { return limits_; }
    // Connection and queue counts against the limits (its own lock).
    Admission &admission() { return admission_; }
    const Admission &admission() const { return admission_; }
    // I/O accounting is on (the metrics endpoint, or metrics.accounting for skiff-ctl stats): I/O
    // queues keep per-namespace metrics and time each command. Set before the target serves;
    // while off, the data path pays one branch per command.
    void enable_metrics() { metrics_ = true; }
    bool metrics_enabled() const { return metrics_; }

    Status add_subsystem(std::shared_ptr<Subsystem> subsystem);
    std::shared_ptr<Subsystem> find_subsystem(std::string_view nqn) const;
    std::shared_ptr<Subsystem> discovery_subsystem() const { return discovery_; }
    std::vector<std::shared_ptr<Subsystem>> subsystems() const;
    // Takes a subsystem out (new Connects fail); its controllers are killed, their queues close.
    std::shared_ptr<Subsystem> remove_subsystem(std::string_view nqn);

    // Registers a port; returns it with its id filled in.
    Port add_port(Port port);
    std::vector<Port> ports() const;
    // The port as it is now (its subsystem list may change while it runs).
    std::optional<Port> find_port(uint16_t id) const;
    void remove_port(uint16_t id);
    // Replaces the subsystem list of a port (nullopt: every subsystem).
    Status set_port_subsystems(uint16_t id, std::optional<std::vector<std::string>> nqns);
    // Whether a host connecting through this port may reach the subsystem at all (the port's
    // current subsystem list, not the copy a queue took when it connected).
    bool port_exposes(const Port &port, const Subsystem &subsystem) const;

    // Discovery referrals: other targets' discovery services, listed in the discovery log page
    // as entries of subtype 1 (referral). Each Port needs trtype, traddr and trsvcid; its id is
    // the entry's PORTID.
    void set_referrals(std::vector<Port> referrals);
    std::vector<Port> referrals() const;

    // Creates a controller with the next free dynamic id (1..0xFFEF). A non-zero
    // `max_transfer` below the target's lowers the controller's MDTS (its transport's limit).
    std::shared_ptr<Controller> create_controller(std::shared_ptr<Subsystem> subsystem, std::string hostnqn,
                                                  std::array<uint8_t, 16> hostid, uint32_t kato_ms,
                                                  uint16_t port_id, uint32_t max_transfer = 0);
    std::shared_ptr<Controller> find_controller(uint16_t cntlid) const;
    // Forgets a controller (its admin queue went away); its I/O queues close on their own.
    void remove_controller(uint16_t cntlid);
    size_t controller_count() const;
    // Tears down at once every controller whose host its subsystem no longer allows (the host
    // was taken off the list, or allow_any_host was turned off): their queues close within a
    // poll period and new I/O queues are refused. Returns how many were torn down.
    size_t enforce_host_access();
    std::vector<std::shared_ptr<Controller>> controllers() const;

    // DH-HMAC-CHAP secrets, keyed by (host NQN, subsystem NQN); an empty subsystem NQN applies
    // to every subsystem. Replaced whole (a configuration change); controllers keep the entry
    // they connected with, new Connects see the new one.
    using HostAuthMap = std::map<std::pair<std::string, std::string>, std::shared_ptr<const HostAuth>>;
    void set_host_auth(HostAuthMap entries);
    // The entry for this host on this subsystem (the specific one, else the host's general
    // one), or nullptr: the host connects without authentication.
    std::shared_ptr<const HostAuth> host_auth(const std::string &hostnqn, const std::string &subnqn) const;
    // What a discovery controller asks of this host: its entry for the discovery NQN, else its
    // general one, else, when all its per-subsystem entries share one host secret (as `nvme
    // connect-all --dhchap-secret` uses one for discovery and every subsystem), the first of
    // them. nullptr: plain discovery (the log then omits subsystems that need a secret).
    std::shared_ptr<const HostAuth> discovery_auth(const std::string &hostnqn) const;
    // The hosts' TLS PSKs (NVMe/TCP secure channel), read at each TLS handshake.
    tls::PskStore &tls_psks() { return tls_psks_; }
    const tls::PskStore &tls_psks() const { return tls_psks_; }

    // Bumped when subsystems, ports or host lists change (discovery log GENCTR). Lock-free:
    // every discovery controller's admin queue compares it at each poll (discovery_change.cpp).
    uint64_t discovery_generation() const { return discovery_generation_.load(std::memory_order_acquire); }
    // For changes the discovery log shows that Target does not make itself: a subsystem's host
    // list or allow-any-host switch (their editor calls this after changing them).
    void note_discovery_change();

  private:
    Limits limits_;
    bool metrics_ = false;
    Admission admission_{limits_};
    tls::PskStore tls_psks_;
    mutable std::mutex mu_;
    std::shared_ptr<Subsystem> discovery_;
    std::vector<std::shared_ptr<Subsystem>> subsystems_;
    std::vector<Port> ports_;
    std::vector<Port> referrals_;
    std::map<uint16_t, std::shared_ptr<Controller>> controllers_;
    uint16_t next_cntlid_ = 1;
    uint16_t next_port_id_ = 1;
    std::atomic<uint64_t> discovery_generation_{1}; // written under mu_
    HostAuthMap host_auth_;
};

} // namespace skiff::nvmeof::target
