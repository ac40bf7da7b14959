// An NVM subsystem (or the discovery subsystem): identity, namespaces, and which hosts may
// connect. Configured before the target starts; namespaces and hosts may also be added and
// removed while it runs (controllers then raise a namespace-attribute-changed event).
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/ana_state.hpp"
#include "skiff/nvmeof/target/host_event_counts.hpp"
#include "skiff/nvmeof/target/io_counters.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

constexpr const char *kDiscoveryNqn = "nqn.2014-08.org.nvmexpress.discovery";
class Controller;

enum class SubsystemKind : uint8_t { kNvm, kDiscovery };

struct SubsystemIdentity {
    std::string serial = "SKIFF0001";
    std::string model = "skiff RAM namespace";
    std::string firmware = "0.1";
};

class Subsystem {
  public:
    Subsystem(std::string nqn, SubsystemKind kind, SubsystemIdentity identity = {});

    const std::string &nqn() const { return nqn_; }
    SubsystemKind kind() const { return kind_; }
    bool is_discovery() const { return kind_ == SubsystemKind::kDiscovery; }
    const SubsystemIdentity &identity() const { return identity_; }

    // Adds a namespace; nsid must be 1..kMaxNamespaces and unused. Safe while I/O runs: the
    // controllers whose hosts must not see it (its visibility) hide it before it is published.
    Status add_namespace(std::shared_ptr<Namespace> ns);
    // Takes a namespace out: new commands no longer find it. Requests already holding it keep
    // it pinned; the caller must keep the returned object alive until it is retired (no pins
    // after every poll group passed a quiescent point). Null when there is no such namespace.
    std::shared_ptr<Namespace> remove_namespace(uint32_t nsid);
    // The namespaces, by nsid (control plane).
    std::vector<std::shared_ptr<Namespace>> namespaces() const;
    // The namespace with this id, or nullptr, whoever asks (a host's own view is
    // Controller::find_namespace). Lock-free: used per I/O.
    Namespace *find_namespace(uint32_t nsid) const {
        if (nsid == 0 || nsid > kMaxNamespaces) return nullptr;
        return slots_[nsid - 1].load(std::memory_order_acquire);
    }
    // Grows namespace nsid to size_bytes once its device has grown (Namespace::grow_to); the
    // connected hosts get the namespace-attribute-changed event naming it.
    Status grow_namespace(uint32_t nsid, uint64_t size_bytes);
    // Changes which hosts see namespace nsid (namespace_visibility.cpp): a host that lost it finds
    // the nsid inactive from now on, and hosts whose view changed get the namespace-attribute-
    // changed event naming it.
    Status set_namespace_visibility(uint32_t nsid, NamespaceVisibility visibility);
    // Bumped whenever the namespace list or a namespace's attributes change; controllers compare
    // it to raise events.
    uint64_t namespace_generation() const { return ns_generation_.load(std::memory_order_acquire); }

    // Host access: any host, or only the NQNs on the list.
    void set_allow_any_host(bool allow) { allow_any_host_ = allow; }
    bool allow_any_host() const { return allow_any_host_; }
    void allow_host(const std::string &hostnqn);
    // False when the host was not on the list.
    bool disallow_host(const std::string &hostnqn);
    std::vector<std::string> allowed_hosts() const;
    bool host_allowed(std::string_view hostnqn) const;

    // Controller ids this subsystem hands out (nvmet's cntlid_min / cntlid_max).
    void set_cntlid_range(uint16_t min, uint16_t max) {
        cntlid_min_ = min;
        cntlid_max_ = max;
    }
    uint16_t cntlid_min() const { return cntlid_min_; }
    uint16_t cntlid_max() const { return cntlid_max_; }

    // ANA: the state of each group as seen through port `port_id` (created optimized on first
    // use; the reference stays valid for the subsystem's life, so controllers keep it).
    PortAna &port_ana(uint16_t port_id);
    // Sets one group's state on one port; false when it was already so.
    bool set_ana_state(uint16_t port_id, uint32_t group, AnaState state);

    // I/O of queues that have gone away (SMART counts survive reconnects).
    RetiredIo &retired_io() { return retired_io_; }
    // Per-namespace I/O metrics (the metrics endpoint): shared, so a queue can fold its counts in
    // when it goes away whatever outlives what.
    const std::shared_ptr<SubsystemIoMetrics> &io_metrics() const { return io_metrics_; }
    // Keep-alive expiries and authentication failures per host NQN (the metrics endpoint).
    HostEventCounts &host_events() { return host_events_; }
    const HostEventCounts &host_events() const { return host_events_; }

    // The live controllers (each attaches itself in its constructor and detaches in its
    // destructor), so a reservation change can reach every controller of a host. Not per I/O.
    // Attaching sets the controller's hidden namespaces (namespace_visibility.cpp).
    void attach_controller(Controller *c);
    void detach_controller(Controller *c);
    template <class F>
    void for_each_controller(F &&f) const {
        std::lock_guard lock(controllers_mu_);
        for (Controller *c : controllers_) f(*c);
    }

  private:
    // Sets, in every live controller, whether its host sees ns. mu_ held.
    void update_hidden(const Namespace &ns);

    std::string nqn_;
    SubsystemKind kind_;
    SubsystemIdentity identity_;
    std::array<std::atomic<Namespace *>, kMaxNamespaces> slots_{};
    std::vector<std::shared_ptr<Namespace>> owned_; // keeps namespaces alive; guarded by mu_
    // Control plane only: namespace and host lists, namespace visibility. Taken before
    // controllers_mu_ when both are held.
    mutable std::mutex mu_;
    std::atomic<uint64_t> ns_generation_{0};
    std::atomic<bool> allow_any_host_{true};
    std::vector<std::string> allowed_hosts_; // guarded by mu_
    uint16_t cntlid_min_ = 1, cntlid_max_ = 0xFFEF;
    RetiredIo retired_io_;
    std::shared_ptr<SubsystemIoMetrics> io_metrics_ = std::make_shared<SubsystemIoMetrics>();
    HostEventCounts host_events_;
    std::map<uint16_t, std::unique_ptr<PortAna>> port_ana_; // guarded by mu_
    mutable std::mutex controllers_mu_;
    std::vector<Controller *> controllers_; // guarded by controllers_mu_
};

// NQN syntax check (NVMe Base spec 4.5): "nqn.yyyy-mm.reverse.domain:..." or the UUID form, at
// most 223 bytes. Returns an empty string when valid, else what is wrong.
std::string check_nqn(std::string_view nqn);

} // namespace skiff::nvmeof::target
