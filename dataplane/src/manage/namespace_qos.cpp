#include "namespace_qos.hpp"

#include "skiff/config/save.hpp"
#include "skiff/nvmeof/target/monotonic_clock.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/target/subsystem_io_metrics.hpp"

namespace skiff::dataplane {

namespace tgt = nvmeof::target;
using nlohmann::json;

tgt::QosLimits qos_limits(const config::QosLimitsConfig &c) {
    tgt::QosLimits l;
    l.ios_per_sec = {c.rw_ios_per_sec, c.read_ios_per_sec, c.write_ios_per_sec};
    l.bytes_per_sec = {c.rw_bytes_per_sec, c.read_bytes_per_sec, c.write_bytes_per_sec};
    return l;
}

std::string apply_namespace_qos(tgt::Namespace &ns, const config::QosConfig &qos) {
    tgt::QosPolicy::HostLimits hosts;
    for (auto &h : qos.hosts) hosts.emplace_back(h.nqn, qos_limits(h.limits));
    if (!ns.qos().set(qos_limits(qos.limits), hosts, tgt::monotonic_ns()))
        return "namespace " + std::to_string(ns.nsid()) + ": QoS limits for more than " +
               std::to_string(tgt::QosPolicy::kMaxQosHosts) +
               " hosts over its life; remove the namespace and add it again";
    return {};
}

namespace {

const config::NamespaceConfig *find_ns(const config::Config &c, const std::string &nqn, uint32_t nsid) {
    const config::SubsystemConfig *s = c.find_subsystem(nqn);
    if (!s) return nullptr;
    for (auto &ns : s->namespaces)
        if (ns.nsid == nsid) return &ns;
    return nullptr;
}

} // namespace

json qos_show_json(const tgt::Target &target, const config::Config &running, const std::string &subsystem) {
    json out = {{"namespaces", json::array()}};
    for (auto &s : target.subsystems()) {
        if (s->is_discovery() || (!subsystem.empty() && s->nqn() != subsystem)) continue;
        tgt::SubsystemIoMetrics::Totals totals = s->io_metrics()->totals();
        for (auto &ns : s->namespaces()) {
            const config::NamespaceConfig *c = find_ns(running, s->nqn(), ns->nsid());
            json limits = c ? config::qos_to_json(c->qos) : json::object();
            json hosts = limits.contains("hosts") ? limits["hosts"] : json::array();
            limits.erase("hosts");
            const tgt::NamespaceIoTotals &t = totals[ns->nsid()];
            out["namespaces"].push_back({{"subsystem", s->nqn()},
                                         {"nsid", ns->nsid()},
                                         {"limits", limits},
                                         {"hosts", hosts},
                                         {"throttled_ios", t.qos_throttled_ios},
                                         {"throttled_seconds", double(t.qos_throttled_ns) / 1e9}});
        }
    }
    return out;
}

} // namespace skiff::dataplane
