#include "skiff/dataplane/live_config.hpp"

#include "namespace_qos.hpp"

#include "skiff/config/host_auth.hpp"
#include "skiff/config/save.hpp"
#include "skiff/core/log.hpp"
#include "skiff/dataplane/backend_factory.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace skiff::dataplane {

using config::Config;
using nlohmann::json;
namespace tgt = nvmeof::target;

nvmeof::target::Limits limits_from(const config::TransportSettings &t) {
    tgt::Limits l;
    l.max_queue_depth = static_cast<uint16_t>(t.max_queue_depth);
    l.max_admin_queue_depth = static_cast<uint16_t>(t.max_admin_queue_depth);
    l.max_io_queues = static_cast<uint16_t>(t.max_io_queues);
    l.max_transfer = t.max_io_size;
    l.in_capsule_data = t.in_capsule_data_size;
    l.discovery_kato_ms = t.discovery_kato_ms;
    l.rdma_srq_depth = t.srq_depth;
    l.tcp_zero_copy_read_min = t.zero_copy_read_min;
    l.stall_timeout_ms = t.stall_timeout_ms;
    l.max_connections = t.max_connections;
    l.max_connections_per_host = t.max_connections_per_host;
    l.max_queues_per_host = t.max_queues_per_host;
    l.auth_timeout_ms = t.auth_timeout_ms;
    return l;
}

namespace {

std::string listener_key(const config::ListenerConfig &l) {
    return l.trtype + " " + nvmeof::transport::host_port(l.addr, l.port);
}

nvmeof::transport::ListenAddress listen_address(const config::ListenerConfig &l) {
    nvmeof::transport::ListenAddress a{l.addr, l.port, l.trtype};
    a.secure_channel =
        nvmeof::target::parse_secure_channel(l.secure_channel).value_or(tgt::SecureChannel::kNone);
    a.allow_plaintext_psk_hosts = l.allow_plaintext_psk_hosts;
    return a;
}

// A configuration's backends by name and namespaces by (subsystem, nsid): apply() looks up every
// namespace and backend of both configurations, and a scan each would make that quadratic (a
// target with 1000 namespaces spent most of a namespace add's 20 ms in those scans).
struct ConfigIndex {
    explicit ConfigIndex(const Config &c) {
        for (auto &b : c.backends) backends.emplace(b.name, &b);
        for (auto &s : c.subsystems)
            for (auto &ns : s.namespaces) namespaces.emplace(std::pair(s.nqn, ns.nsid), &ns);
    }
    const config::BackendConfig *backend(const std::string &name) const {
        auto it = backends.find(name);
        return it == backends.end() ? nullptr : it->second;
    }
    const config::NamespaceConfig *ns(const std::string &nqn, uint32_t nsid) const {
        auto it = namespaces.find(std::pair(nqn, nsid));
        return it == namespaces.end() ? nullptr : it->second;
    }

    std::unordered_map<std::string, const config::BackendConfig *> backends;
    std::map<std::pair<std::string, uint32_t>, const config::NamespaceConfig *> namespaces;
};

// Whether a namespace stays as it is: same settings on the same, unchanged backend.
// Unchanged, or only its backend grew in place (`grown`): the namespace stays, hosts keep it.
// QoS limits and the hosts that see it are not part of it: they change on the live namespace
// (apply_in_place).
bool ns_unchanged(const ConfigIndex &cur, const ConfigIndex &next, const config::NamespaceConfig &a,
                  const config::NamespaceConfig *b, const std::set<std::string> &grown) {
    if (!b) return false;
    config::NamespaceConfig a_live = a;
    a_live.qos = b->qos;
    a_live.visible_hosts = b->visible_hosts;
    if (!(a_live == *b)) return false;
    const config::BackendConfig *ba = cur.backend(a.backend), *bb = next.backend(b->backend);
    if (!ba || !bb) return false;
    if (!grown.count(bb->name)) return *ba == *bb;
    config::BackendConfig resized = *ba;
    resized.size_bytes = bb->size_bytes;
    return resized == *bb;
}

// The same backend with only a larger size: it grows in place (BlockDevice::grow), keeping its
// bytes and its namespace's hosts, instead of being made again.
// A backend whose size the device decided (size 0: an aio file's or an rbd image's) grows when
// the new size is larger than the device's.
// The configuration's visible_hosts as the target holds it.
tgt::NamespaceVisibility visibility_of(const config::NamespaceConfig &ns) {
    if (!ns.visible_hosts) return {};
    return {false, *ns.visible_hosts};
}

std::string describe(const tgt::NamespaceVisibility &v) {
    if (v.all_hosts) return "every host";
    if (v.hosts.empty()) return "no host";
    std::string out;
    for (auto &h : v.hosts) out += (out.empty() ? "" : ", ") + h;
    return out;
}

// A namespace that stays takes its new QoS limits.
void apply_qos(tgt::Subsystem &live, const config::NamespaceConfig &ns, std::vector<std::string> &done) {
    tgt::Namespace *live_ns = live.find_namespace(ns.nsid); // kept by the subsystem: mu_ is held
    if (!live_ns) return;
    std::string what = "QoS of namespace " + std::to_string(ns.nsid) + " of " + live.nqn() + ": ";
    if (std::string err = apply_namespace_qos(*live_ns, ns.qos); !err.empty())
        done.push_back(what + "not changed: " + err);
    else
        done.push_back(what +
                       (ns.qos.empty() ? std::string("no limits") : config::qos_to_json(ns.qos).dump()));
}

// A namespace that stays takes its new host list.
void apply_visibility(tgt::Subsystem &live, const config::NamespaceConfig &ns,
                      std::vector<std::string> &done) {
    const tgt::NamespaceVisibility v = visibility_of(ns);
    std::string what = "namespace " + std::to_string(ns.nsid) + " of " + live.nqn();
    if (Status st = live.set_namespace_visibility(ns.nsid, v); !st)
        done.push_back(what + ": hosts that see it not changed: " + st.error().message);
    else
        done.push_back(what + " is visible to " + describe(v));
}

bool grows_in_place(const config::BackendConfig &old, const config::BackendConfig &next,
                    const tgt::BlockDevice &device) {
    const uint64_t was = old.size_bytes ? old.size_bytes : device.size_bytes();
    if (next.size_bytes <= was) return false;
    config::BackendConfig resized = old;
    resized.size_bytes = next.size_bytes;
    return resized == next;
}

// The smallest block size the device can serve (O_DIRECT alignment), where devices say so.
template <typename Device>
uint32_t min_block_size_of(const Device &d) {
    if constexpr (requires { d.min_block_size(); })
        return d.min_block_size();
    else
        return 512;
}

// What apply() refuses to change on a running target, or an empty string.
std::string needs_restart(const Config &cur, const Config &next) {
    if (cur.target.cores != next.target.cores)
        return "target.cores: changing the number of poll groups needs a restart";
    if (cur.target.datapath != next.target.datapath || cur.target.dpa_eus != next.target.dpa_eus)
        return "target.datapath: changing the data path (or target.dpa.eus) needs a restart";
    if (cur.target.management_socket != next.target.management_socket)
        return "target.management_socket: moving the management socket needs a restart";
    if (cur.mdns != next.mdns)
        return "mdns: turning the mDNS announcement on or off or renaming it needs a restart";
    if (cur.metrics != next.metrics)
        return "metrics: moving or turning the metrics endpoint (metrics.listen) or the I/O accounting "
               "(metrics.accounting) on or off needs a restart";
    for (auto &n : next.listeners)
        for (auto &c : cur.listeners)
            if (listener_key(n) == listener_key(c) &&
                (n.secure_channel != c.secure_channel ||
                 n.allow_plaintext_psk_hosts != c.allow_plaintext_psk_hosts))
                return "listener " + listener_key(n) +
                       ": secure_channel and allow_plaintext_psk_hosts are fixed while the listener exists; "
                       "remove it and add it again";
    if (!(cur.transport() == next.transport()))
        return "transports: every transport setting (queue depths, in-capsule data, I/O size, shared receive "
               "queue, zero-copy reads, stall and authentication timeouts, connection limits) needs a "
               "restart";
    for (size_t i = 0; i < next.subsystems.size(); ++i) {
        const auto &n = next.subsystems[i];
        const auto *c = cur.find_subsystem(n.nqn);
        if (!c) continue;
        std::string p = "subsystems[" + std::to_string(i) + "] (" + n.nqn + ")";
        if (c->serial != n.serial || c->model != n.model)
            return p + ": serial and model are fixed while the subsystem exists; remove it and add it again";
        if (c->cntlid_min != n.cntlid_min || c->cntlid_max != n.cntlid_max)
            return p + ": the controller id range is fixed while the subsystem exists; remove it and add it "
                       "again";
    }
    return {};
}

} // namespace

LiveConfig::LiveConfig(tgt::Target &target, Config initial)
    : target_(target), running_(std::move(initial)),
      retirement_(std::make_unique<NamespaceRetirement>(nullptr)) {}

Status LiveConfig::build() {
    Config initial = running_;
    // Start from nothing but the settings, then "apply" the whole configuration (listeners wait
    // for attach()).
    running_ = Config{};
    running_.target = initial.target;
    running_.transports = initial.transports;
    running_.metrics = initial.metrics; // a start setting, as target and transports
    running_.mdns = initial.mdns;
    auto applied = apply(initial);
    if (!applied) return applied.error();
    return Status::success();
}

Status LiveConfig::attach(TargetService &service) {
    std::lock_guard lock(mu_);
    service_ = &service;
    retirement_ = std::make_unique<NamespaceRetirement>(&service);
    for (auto &l : running_.listeners) {
        auto port = service.add_listener(listen_address(l), false, l.subsystems);
        if (!port) return port.error();
        listeners_.push_back({port->id, l});
    }
    std::vector<std::string> ana_done;
    apply_ana(running_, 0, ana_done);
    if (running_.discovery) {
        const auto &d = *running_.discovery;
        auto port = service.add_listener(listen_address(d), true);
        if (!port) return port.error();
        discovery_ = Listener{port->id, d};
    }
    return Status::success();
}

Result<std::shared_ptr<tgt::Namespace>>
LiveConfig::make_namespace(const std::string &nqn, const config::NamespaceConfig &ns,
                           const std::shared_ptr<tgt::BlockDevice> &device) const {
    uint64_t size = device->size_bytes();
    if (size == 0 || size % ns.block_size)
        return make_error(DOCA_ERROR_INVALID_VALUE, "namespace " + std::to_string(ns.nsid) + " of " + nqn +
                                                        ": backend \"" + ns.backend + "\" holds " +
                                                        std::to_string(size) +
                                                        " bytes, not a non-zero multiple of the " +
                                                        std::to_string(ns.block_size) + "-byte block size");
    if (uint32_t min = min_block_size_of(*device); ns.block_size % min)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "namespace " + std::to_string(ns.nsid) + " of " + nqn + ": block size " +
                              std::to_string(ns.block_size) + " is not a multiple of backend \"" +
                              ns.backend + "\"'s smallest block (" + std::to_string(min) + " bytes)");
    tgt::NamespaceIds ids = tgt::derive_namespace_ids(nqn, ns.nsid);
    if (ns.uuid) ids.uuid = *ns.uuid;
    if (ns.nguid) ids.nguid = *ns.nguid;
    if (ns.eui64) ids.eui64 = *ns.eui64;
    auto out = std::make_shared<tgt::Namespace>(ns.nsid, ns.block_size, device, ids);
    out->set_ana_group(ns.ana_group);
    out->set_visibility(visibility_of(ns));
    if (std::string err = apply_namespace_qos(*out, ns.qos); !err.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE, err + " (" + nqn + ")");
    if (std::string err = out->reservation().attach_store(ns.ptpl_file); !err.empty())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "namespace " + std::to_string(ns.nsid) + " of " + nqn + " (ptpl_file): " + err);
    return out;
}

Result<std::shared_ptr<tgt::Subsystem>> LiveConfig::make_subsystem(const config::SubsystemConfig &s) const {
    auto subsys = std::make_shared<tgt::Subsystem>(s.nqn, tgt::SubsystemKind::kNvm,
                                                   tgt::SubsystemIdentity{s.serial, s.model, "0.1"});
    subsys->set_allow_any_host(s.allow_any_host);
    for (auto &h : s.allowed_hosts) subsys->allow_host(h);
    subsys->set_cntlid_range(s.cntlid_min, s.cntlid_max);
    return subsys;
}

void LiveConfig::remove_namespace(tgt::Subsystem &subsys, uint32_t nsid) {
    if (auto ns = subsys.remove_namespace(nsid)) retirement_->retire(std::move(ns));
}

Result<std::vector<std::string>> LiveConfig::apply(const Config &next, uint32_t ana_transition_ms) {
    std::lock_guard lock(mu_);
    const Config &cur = running_;
    auto refuse = [](const std::string &why) { return make_error(DOCA_ERROR_NOT_PERMITTED, why); };
    if (auto why = needs_restart(cur, next); !why.empty()) return refuse(why);
    const ConfigIndex cur_ix(cur), next_ix(next);
    std::vector<std::string> done;

    // Prepare everything that can fail — devices, namespaces, new subsystems, listeners — before
    // touching the target, so a failure leaves it exactly as it was.
    std::map<std::string, std::shared_ptr<tgt::BlockDevice>> devices;
    std::set<std::string> grown; // backends grown in place: their namespaces grow, not restart
    for (auto &b : next.backends) {
        const config::BackendConfig *old = cur_ix.backend(b.name);
        auto have = devices_.find(b.name);
        if (old && *old == b && have != devices_.end()) {
            devices[b.name] = have->second;
            continue;
        }
        if (old && have != devices_.end() && grows_in_place(*old, b, *have->second)) {
            // A failed apply may have grown it already: growing is harmless, so it stays grown.
            if (have->second->size_bytes() < b.size_bytes)
                if (Status st = have->second->grow(b.size_bytes); !st)
                    return refuse("backend \"" + b.name + "\" cannot grow to " +
                                  std::to_string(b.size_bytes) + " bytes: " + st.error().message);
            devices[b.name] = have->second;
            grown.insert(b.name);
            continue;
        }
        auto made = make_backend(b);
        if (!made) return refuse(made.error().message);
        devices[b.name] = *made;
    }
    struct NsAdd {
        std::string nqn;
        std::shared_ptr<tgt::Namespace> ns;
    };
    std::vector<NsAdd> ns_add;
    std::vector<std::shared_ptr<tgt::Subsystem>> subsys_add;
    for (auto &s : next.subsystems) {
        const config::SubsystemConfig *old = cur.find_subsystem(s.nqn);
        if (!old) {
            auto made = make_subsystem(s);
            if (!made) return refuse(made.error().message);
            subsys_add.push_back(*made);
        }
        for (auto &ns : s.namespaces) {
            const config::NamespaceConfig *was = cur_ix.ns(s.nqn, ns.nsid);
            if (was && ns_unchanged(cur_ix, next_ix, *was, &ns, grown)) continue;
            auto made = make_namespace(s.nqn, ns, devices[ns.backend]);
            if (!made) return refuse(made.error().message);
            ns_add.push_back({s.nqn, *made});
        }
    }
    std::vector<Listener> bound;
    auto unbind = [&] {
        for (auto &l : bound) (void)service_->remove_listener(l.port_id);
    };
    std::set<std::string> cur_keys, next_keys;
    for (auto &l : cur.listeners) cur_keys.insert(listener_key(l));
    for (auto &l : next.listeners) next_keys.insert(listener_key(l));
    bool discovery_changed = !(cur.discovery == next.discovery);
    if (service_) {
        for (auto &l : next.listeners) {
            if (cur_keys.count(listener_key(l))) continue;
            auto port = service_->add_listener(listen_address(l), false, l.subsystems);
            if (!port) {
                unbind();
                return refuse("listener " + listener_key(l) + ": " + port.error().message);
            }
            bound.push_back({port->id, l});
        }
        if (discovery_changed && next.discovery) {
            const auto &d = *next.discovery;
            bool same_addr = cur.discovery && listener_key(*cur.discovery) == listener_key(d);
            if (!same_addr) {
                auto port = service_->add_listener(listen_address(d), true);
                if (!port) {
                    unbind();
                    return refuse("discovery " + listener_key(d) + ": " + port.error().message);
                }
                bound.push_back({port->id, d});
            }
        }
    }

    // Commit: nothing below fails.
    if (service_) {
        std::vector<Listener> kept;
        for (auto &l : listeners_) {
            if (next_keys.count(listener_key(l.config))) {
                kept.push_back(l);
                continue;
            }
            (void)service_->remove_listener(l.port_id);
            done.push_back("removed listener " + listener_key(l.config));
        }
        for (auto &k : kept)
            for (auto &l : next.listeners) {
                if (listener_key(l) != listener_key(k.config)) continue;
                if (!(l.subsystems == k.config.subsystems)) {
                    (void)target_.set_port_subsystems(k.port_id, l.subsystems);
                    done.push_back("changed the subsystems of listener " + listener_key(l));
                }
                k.config = l; // its ANA states are applied below
            }
        size_t first_discovery = bound.size();
        for (size_t i = 0; i < bound.size(); ++i)
            if (next.discovery && bound[i].config == *next.discovery && discovery_changed)
                first_discovery = i;
        for (size_t i = 0; i < bound.size(); ++i) {
            if (i == first_discovery) continue;
            kept.push_back(bound[i]);
            done.push_back("added listener " + listener_key(bound[i].config));
        }
        listeners_ = kept;
        if (discovery_changed) {
            bool same_addr = cur.discovery && next.discovery &&
                             listener_key(*cur.discovery) == listener_key(*next.discovery);
            if (discovery_ && !same_addr) {
                (void)service_->remove_listener(discovery_->port_id);
                discovery_.reset();
                done.push_back("removed the discovery listener");
            }
            if (first_discovery < bound.size()) {
                discovery_ = bound[first_discovery];
                done.push_back("added discovery listener " + listener_key(discovery_->config));
            }
        }
    }
    for (auto &s : cur.subsystems) {
        auto live = target_.find_subsystem(s.nqn);
        if (!live) continue;
        const config::SubsystemConfig *n = next.find_subsystem(s.nqn);
        for (auto &ns : s.namespaces) {
            if (n && ns_unchanged(cur_ix, next_ix, ns, next_ix.ns(s.nqn, ns.nsid), grown)) continue;
            remove_namespace(*live, ns.nsid);
            done.push_back("removed namespace " + std::to_string(ns.nsid) + " from " + s.nqn);
        }
        if (!n) {
            target_.remove_subsystem(s.nqn);
            done.push_back("removed subsystem " + s.nqn);
            continue;
        }
        bool hosts_changed = s.allow_any_host != n->allow_any_host;
        live->set_allow_any_host(n->allow_any_host);
        for (auto &h : s.allowed_hosts)
            if (std::find(n->allowed_hosts.begin(), n->allowed_hosts.end(), h) == n->allowed_hosts.end()) {
                live->disallow_host(h);
                hosts_changed = true;
                done.push_back("removed host " + h + " from " + s.nqn);
            }
        for (auto &h : n->allowed_hosts)
            if (std::find(s.allowed_hosts.begin(), s.allowed_hosts.end(), h) == s.allowed_hosts.end()) {
                live->allow_host(h);
                hosts_changed = true;
                done.push_back("allowed host " + h + " on " + s.nqn);
            }
        // Which hosts the discovery log lists the subsystem to: persistent discovery hears of it.
        if (hosts_changed) target_.note_discovery_change();
    }
    // A host that lost its access loses its controllers now, not at its next reconnect.
    if (size_t n = target_.enforce_host_access())
        done.push_back("tore down " + std::to_string(n) + " controller(s) of hosts no longer allowed");
    for (auto &subsys : subsys_add) {
        (void)target_.add_subsystem(subsys); // validated: the NQN is well formed and new
        done.push_back("added subsystem " + subsys->nqn());
    }
    for (auto &a : ns_add) {
        auto live = target_.find_subsystem(a.nqn);
        (void)live->add_namespace(a.ns); // its nsid was free or freed above
        done.push_back("added namespace " + std::to_string(a.ns->nsid()) + " (" + a.ns->device().kind() +
                       ") to " + a.nqn);
    }
    grow_namespaces(next, grown, devices, done);
    devices_ = std::move(devices);
    apply_in_place(cur, next, done);
    if (service_) apply_ana(next, ana_transition_ms, done);
    if (!(cur.referrals == next.referrals)) {
        std::vector<tgt::Port> referrals;
        for (auto &r : next.referrals) {
            tgt::Port p;
            p.id = uint16_t(referrals.size() + 1);
            p.trtype = r.trtype;
            p.traddr = r.addr;
            p.trsvcid = std::to_string(r.port);
            p.discovery_only = true;
            referrals.push_back(p);
        }
        target_.set_referrals(std::move(referrals));
        done.push_back("discovery referrals: " + std::to_string(next.referrals.size()));
    }
    if (cur.hosts != next.hosts) {
        auto auth = config::host_auth_map(next);
        auto psks = config::tls_psk_map(next);
        const size_t n_auth = auth.size(), n_psk = psks.size();
        target_.set_host_auth(std::move(auth));
        target_.tls_psks().replace(std::move(psks));
        // Counts only: the secrets never reach a log.
        auto entries = [](size_t n) { return std::to_string(n) + " host entr" + (n == 1 ? "y" : "ies"); };
        done.push_back("DH-HMAC-CHAP secrets set for " + entries(n_auth) + ", TLS PSKs for " +
                       entries(n_psk) + " (connected queues keep theirs)");
    }
    if (cur.target.log_level != next.target.log_level) {
        if (auto level = log::parse_level(next.target.log_level)) log::set_level(*level);
        done.push_back("log level " + next.target.log_level);
    }
    running_ = next;
    auto log = skiff::log::get("manage");
    for (auto &line : done) log->info("{}", line);
    return done;
}

// The namespaces on backends that grew take the new size; their hosts get the
// namespace-attribute-changed event and read the new size without reconnecting.
void LiveConfig::grow_namespaces(const Config &next, const std::set<std::string> &grown,
                                 const std::map<std::string, std::shared_ptr<tgt::BlockDevice>> &devices,
                                 std::vector<std::string> &done) {
    for (auto &s : next.subsystems) {
        auto live = target_.find_subsystem(s.nqn);
        if (!live) continue;
        for (auto &ns : s.namespaces) {
            if (!grown.count(ns.backend)) continue;
            const tgt::Namespace *have = live->find_namespace(ns.nsid);
            if (!have || &have->device() != devices.at(ns.backend).get()) continue; // made anew above
            const uint64_t bytes = have->device().size_bytes() / ns.block_size * ns.block_size;
            if (Status st = live->grow_namespace(ns.nsid, bytes); !st)
                done.push_back("namespace " + std::to_string(ns.nsid) + " of " + s.nqn +
                               " kept its size: " + st.error().message);
            else
                done.push_back("namespace " + std::to_string(ns.nsid) + " of " + s.nqn + " grew to " +
                               std::to_string(bytes) + " bytes");
        }
    }
}

void LiveConfig::apply_in_place(const Config &cur, const Config &next, std::vector<std::string> &done) {
    const ConfigIndex cur_ix(cur);
    for (auto &s : next.subsystems) {
        auto live = target_.find_subsystem(s.nqn);
        if (!live) continue;
        for (auto &ns : s.namespaces) {
            const config::NamespaceConfig *was = cur_ix.ns(s.nqn, ns.nsid);
            if (!was) continue; // made anew, with its settings
            if (was->qos != ns.qos) apply_qos(*live, ns, done);
            if (was->visible_hosts != ns.visible_hosts) apply_visibility(*live, ns, done);
        }
    }
}

void LiveConfig::apply_ana(const Config &c, uint32_t transition_ms, std::vector<std::string> &done) {
    auto now = std::chrono::steady_clock::now();
    for (auto &l : listeners_) {
        for (auto &s : c.subsystems) {
            auto live = target_.find_subsystem(s.nqn);
            if (!live) continue;
            const tgt::PortAna &ana = live->port_ana(l.port_id);
            for (uint32_t g = 1; g <= tgt::kMaxAnaGroups; ++g) {
                tgt::AnaState want = *tgt::parse_ana_state(l.config.ana_state(s.nqn, g)); // validated
                auto pending = std::find_if(transitions_.begin(), transitions_.end(), [&](auto &t) {
                    return t.port_id == l.port_id && t.nqn == s.nqn && t.group == g;
                });
                if (pending != transitions_.end()) {
                    if (pending->final == want) continue; // on its way there
                    transitions_.erase(pending);
                }
                if (ana.state(g) == want) continue;
                std::string what = "ANA group " + std::to_string(g) + " of " + s.nqn + " on listener " +
                                   listener_key(l.config) + ": ";
                if (transition_ms && want != tgt::AnaState::kChange) {
                    live->set_ana_state(l.port_id, g, tgt::AnaState::kChange);
                    transitions_.push_back(
                        {l.port_id, s.nqn, g, want, now + std::chrono::milliseconds(transition_ms)});
                    done.push_back(what + "change, then " + tgt::ana_state_name(want) + " in " +
                                   std::to_string(transition_ms) + " ms");
                } else {
                    live->set_ana_state(l.port_id, g, want);
                    done.push_back(what + tgt::ana_state_name(want));
                }
            }
        }
    }
}

size_t LiveConfig::finish_ana_transitions() {
    std::lock_guard lock(mu_);
    auto now = std::chrono::steady_clock::now();
    size_t n = 0;
    for (auto it = transitions_.begin(); it != transitions_.end();) {
        if (it->due > now) {
            ++it;
            continue;
        }
        if (auto live = target_.find_subsystem(it->nqn)) {
            live->set_ana_state(it->port_id, it->group, it->final);
            skiff::log::get("manage")->info("ANA group {} of {} on port {}: {}", it->group, it->nqn,
                                            it->port_id, tgt::ana_state_name(it->final));
        }
        it = transitions_.erase(it);
        ++n;
    }
    return n;
}

std::optional<nvmeof::transport::ListenAddress> LiveConfig::discovery_address() const {
    std::lock_guard lk(mu_);
    if (!discovery_ || !service_) return std::nullopt;
    return service_->listener_address(discovery_->port_id);
}

Config LiveConfig::running() const {
    std::lock_guard lock(mu_);
    return running_;
}

size_t LiveConfig::reap() {
    std::lock_guard lock(mu_);
    return retirement_->reap();
}

// The live ANA state of every group in use (by a namespace or by the listener's configuration)
// of every subsystem the listener exposes: what hosts connected through it are told now.
json LiveConfig::live_ana_json(const Listener &l) const {
    json out = json::array();
    for (auto &s : running_.subsystems) {
        auto live = target_.find_subsystem(s.nqn);
        if (!live ||
            (l.config.subsystems && std::find(l.config.subsystems->begin(), l.config.subsystems->end(),
                                              s.nqn) == l.config.subsystems->end()))
            continue;
        std::set<uint32_t> groups;
        for (auto &ns : s.namespaces) groups.insert(ns.ana_group);
        for (auto &a : l.config.ana)
            if (a.subsystem.empty() || a.subsystem == s.nqn) groups.insert(a.group);
        const tgt::PortAna &ana = live->port_ana(l.port_id);
        for (uint32_t g : groups)
            out.push_back({{"subsystem", s.nqn},
                           {"group", g},
                           {"state", tgt::ana_state_name(ana.state(g))},
                           {"changes", ana.group_changes(g)}});
    }
    return out;
}

json LiveConfig::listeners_json() const {
    std::lock_guard lock(mu_);
    json out = json::array();
    auto one = [&](const Listener &l, bool discovery) {
        json j = {{"port_id", l.port_id},        {"trtype", l.config.trtype},
                  {"addr", l.config.addr},       {"port", l.config.port},
                  {"discovery_only", discovery}, {"secure_channel", l.config.secure_channel}};
        if (service_)
            if (auto a = service_->listener_address(l.port_id)) j["bound"] = a->str();
        if (l.config.subsystems) j["subsystems"] = *l.config.subsystems;
        if (!discovery) j["ana"] = live_ana_json(l);
        out.push_back(j);
    };
    for (auto &l : listeners_) one(l, false);
    if (discovery_) one(*discovery_, true);
    return out;
}

json LiveConfig::controllers_json() const {
    json out = json::array();
    for (auto &ctrl : target_.controllers()) {
        json queues = json::array();
        for (auto &q : ctrl->queue_stats())
            queues.push_back({{"qid", q.qid},
                              {"depth", q.depth},
                              {"read_commands", q.io.read_commands},
                              {"write_commands", q.io.write_commands},
                              {"read_bytes", q.io.read_bytes},
                              {"write_bytes", q.io.write_bytes}});
        out.push_back({{"cntlid", ctrl->cntlid()},
                       {"subsystem", ctrl->subsystem().nqn()},
                       {"host", ctrl->hostnqn()},
                       {"port_id", ctrl->port_id()},
                       {"kato_ms", ctrl->kato_ms()},
                       {"queues", queues}});
    }
    return out;
}

json LiveConfig::connections_json() const {
    tgt::Admission::Counts c = target_.admission().counts();
    const tgt::Limits &l = target_.limits();
    json per_host = json::array(), queues = json::array();
    for (auto &[addr, n] : c.connections_per_host)
        per_host.push_back({{"address", addr}, {"connections", n}});
    for (auto &[host, n] : c.queues_per_host) queues.push_back({{"host", host}, {"queues", n}});
    return {{"connections", c.connections},
            {"per_address", per_host},
            {"queues_per_host", queues},
            {"refused_connections", c.refused_connections},
            {"refused_queues", c.refused_queues},
            {"limits",
             {{"max_connections", l.max_connections},
              {"max_connections_per_host", l.max_connections_per_host},
              {"max_queues_per_host", l.max_queues_per_host},
              {"stall_timeout_ms", l.stall_timeout_ms},
              {"auth_timeout_ms", l.auth_timeout_ms}}}};
}

std::shared_ptr<tgt::BlockDevice> LiveConfig::device(const std::string &name) const {
    std::lock_guard lock(mu_);
    auto it = devices_.find(name);
    return it == devices_.end() ? nullptr : it->second;
}

} // namespace skiff::dataplane
