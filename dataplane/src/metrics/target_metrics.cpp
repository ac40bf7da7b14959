#include "skiff/dataplane/metrics/target_metrics.hpp"

#include "skiff/dataplane/metrics/exposition.hpp"
#include "skiff/dataplane/target_service.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"
#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/latency_histogram.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

namespace skiff::dataplane::metrics {
namespace {

namespace tgt = nvmeof::target;

struct NamespaceRow {
    std::string subsystem;
    uint32_t nsid;
    tgt::NamespaceIoTotals io;
};

// Every namespace that exists now, with its counts (zeros included: a namespace nobody used yet
// still has its series, so rate() works from its first I/O).
std::vector<NamespaceRow> namespace_rows(const tgt::Target &target) {
    std::vector<NamespaceRow> rows;
    for (auto &s : target.subsystems()) {
        if (s->is_discovery()) continue;
        tgt::SubsystemIoMetrics::Totals totals = s->io_metrics()->totals();
        for (auto &ns : s->namespaces()) rows.push_back({s->nqn(), ns->nsid(), totals[ns->nsid()]});
    }
    return rows;
}

Labels namespace_labels(const NamespaceRow &r) {
    return {{"subsystem", r.subsystem}, {"nsid", std::to_string(r.nsid)}};
}

std::string hex(unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%x", v);
    return buf;
}

void write_namespace_counters(Exposition &e, const std::vector<NamespaceRow> &rows) {
    struct Counter {
        const char *name;
        const char *help;
        uint64_t (*get)(const tgt::NamespaceIoTotals &);
    };
    static const Counter kCounters[] = {
        {"skiff_namespace_read_commands_total", "Read commands completed, failed ones included.",
         [](const tgt::NamespaceIoTotals &t) { return t.commands[size_t(tgt::IoKind::kRead)]; }},
        {"skiff_namespace_write_commands_total", "Write commands completed, failed ones included.",
         [](const tgt::NamespaceIoTotals &t) { return t.commands[size_t(tgt::IoKind::kWrite)]; }},
        {"skiff_namespace_other_commands_total",
         "Other I/O commands completed (Flush, Compare, Write Zeroes, Dataset Management, Copy, ...).",
         [](const tgt::NamespaceIoTotals &t) { return t.commands[size_t(tgt::IoKind::kOther)]; }},
        {"skiff_namespace_read_bytes_total", "Bytes read by successful Read commands.",
         [](const tgt::NamespaceIoTotals &t) { return t.read_bytes; }},
        {"skiff_namespace_write_bytes_total", "Bytes written by successful Write commands.",
         [](const tgt::NamespaceIoTotals &t) { return t.write_bytes; }},
    };
    for (const Counter &c : kCounters) {
        e.family(c.name, "counter", c.help);
        for (const NamespaceRow &r : rows) e.sample(c.name, namespace_labels(r), c.get(r.io));
    }
}

// QoS: what waited for a namespace's (or a host's) limit. Zeros for namespaces without limits,
// like every namespace series, so a dashboard's rate() works from the first throttled command.
void write_namespace_qos(Exposition &e, const std::vector<NamespaceRow> &rows) {
    const char *ios = "skiff_namespace_qos_throttled_ios_total";
    e.family(ios, "counter",
             "I/O commands that were queued by a QoS limit (namespace or host) before they ran.");
    for (const NamespaceRow &r : rows) e.sample(ios, namespace_labels(r), r.io.qos_throttled_ios);
    const char *secs = "skiff_namespace_qos_throttled_seconds_total";
    e.family(secs, "counter",
             "Time I/O commands spent queued by a QoS limit, summed over commands (its rate is the average "
             "number of commands waiting).");
    for (const NamespaceRow &r : rows)
        e.sample(secs, namespace_labels(r), double(r.io.qos_throttled_ns) / 1e9);
}

void write_namespace_errors(Exposition &e, const std::vector<NamespaceRow> &rows) {
    const char *name = "skiff_namespace_errors_total";
    e.family(name, "counter",
             "I/O commands that completed with an error, by NVMe status (sct and sc in hex as the spec "
             "numbers them; status \"other\" once a queue has seen more distinct statuses than it keeps).");
    for (const NamespaceRow &r : rows)
        for (auto &[key, n] : r.io.errors) {
            Labels l = namespace_labels(r);
            l.push_back({"status", status_label(key)});
            if (key != tgt::kOtherErrors) {
                l.push_back({"sct", hex(key >> 8)});
                l.push_back({"sc", hex(key & 0xFF)});
            }
            e.sample(name, l, n);
        }
}

void write_namespace_latency(Exposition &e, const std::vector<NamespaceRow> &rows) {
    static const char *const kOps[tgt::kIoKinds] = {"read", "write", "other"};
    std::array<double, tgt::kLatencyBoundsNs.size()> bounds{};
    for (size_t i = 0; i < bounds.size(); ++i) bounds[i] = double(tgt::kLatencyBoundsNs[i]) / 1e9;
    const char *name = "skiff_namespace_latency_seconds";
    e.family(name, "histogram",
             "I/O command latency in the target, from the command capsule received to the response "
             "completed.");
    for (const NamespaceRow &r : rows)
        for (size_t k = 0; k < tgt::kIoKinds; ++k) {
            Labels l = namespace_labels(r);
            l.push_back({"op", kOps[k]});
            const tgt::LatencyTotals &h = r.io.latency[k];
            e.histogram(name, l, bounds, h.buckets, double(h.sum_ns) / 1e9);
        }
}

void write_controllers(Exposition &e, const tgt::Target &target) {
    struct Row {
        Labels labels;
        size_t queues;
        uint64_t in_flight;
    };
    std::vector<Row> rows;
    for (auto &c : target.controllers()) {
        const auto queues = c->queue_stats();
        uint64_t in_flight = 0;
        for (auto &q : queues) in_flight += q.commands_in_flight;
        rows.push_back({{{"subsystem", c->subsystem().nqn()},
                         {"hostnqn", c->hostnqn()},
                         {"cntlid", std::to_string(c->cntlid())}},
                        queues.size(),
                        in_flight});
    }
    e.family("skiff_controller_queues", "gauge", "Queues (admin and I/O) a controller has connected.");
    for (auto &r : rows) e.sample("skiff_controller_queues", r.labels, uint64_t(r.queues));
    e.family("skiff_controller_commands_in_flight", "gauge",
             "I/O commands received and not yet answered on a controller's queues.");
    for (auto &r : rows) e.sample("skiff_controller_commands_in_flight", r.labels, r.in_flight);
}

void write_host_events(Exposition &e, const tgt::Target &target) {
    struct Row {
        Labels labels;
        tgt::HostEventCounts::Counts counts;
    };
    std::vector<Row> rows;
    for (auto &s : target.subsystems())
        for (auto &[host, counts] : s->host_events().snapshot())
            rows.push_back({{{"subsystem", s->nqn()}, {"hostnqn", host}}, counts});
    e.family("skiff_host_keep_alive_expiries_total", "counter",
             "Controllers of a host torn down because its keep-alive timer expired.");
    for (auto &r : rows)
        e.sample("skiff_host_keep_alive_expiries_total", r.labels, r.counts.keep_alive_expiries);
    e.family("skiff_host_auth_failures_total", "counter",
             "Queues of a host closed because DH-HMAC-CHAP failed or did not complete in time.");
    for (auto &r : rows) e.sample("skiff_host_auth_failures_total", r.labels, r.counts.auth_failures);
}

// ANA: each group's state through each I/O listener that exposes the subsystem (a series per
// state, 1 for the current one: Prometheus' way with an enumeration), for the groups that have
// namespaces; and whether each namespace's storage answers. A namespace whose storage does not
// answer is ANA inaccessible on every listener, whatever its group's state says.
void write_ana(Exposition &e, const tgt::Target &target) {
    static constexpr tgt::AnaState kStates[] = {tgt::AnaState::kOptimized, tgt::AnaState::kNonOptimized,
                                                tgt::AnaState::kInaccessible, tgt::AnaState::kPersistentLoss,
                                                tgt::AnaState::kChange};
    const std::vector<tgt::Port> ports = target.ports();
    e.family("skiff_ana_group_state", "gauge",
             "1 for the state an ANA group of a subsystem is in through a listener, 0 for the others "
             "(optimized, non-optimized, inaccessible, persistent-loss, change).");
    for (auto &s : target.subsystems()) {
        if (s->is_discovery()) continue;
        std::set<uint32_t> groups;
        for (auto &ns : s->namespaces()) groups.insert(ns->ana_group());
        for (auto &p : ports) {
            if (p.discovery_only) continue;
            if (p.subsystems &&
                std::find(p.subsystems->begin(), p.subsystems->end(), s->nqn()) == p.subsystems->end())
                continue;
            const tgt::PortAna &ana = s->port_ana(p.id);
            const std::string listener = nvmeof::transport::host_port(
                p.traddr, uint16_t(std::strtoul(p.trsvcid.c_str(), nullptr, 10)));
            for (uint32_t g : groups)
                for (tgt::AnaState st : kStates)
                    e.sample("skiff_ana_group_state",
                             {{"subsystem", s->nqn()},
                              {"listener", listener},
                              {"transport", p.trtype},
                              {"group", std::to_string(g)},
                              {"state", tgt::ana_state_name(st)}},
                             uint64_t(ana.state(g) == st));
        }
    }
    e.family("skiff_namespace_accessible", "gauge",
             "1 while a namespace's storage answers, 0 while it does not (hostmem: its host process is "
             "gone; rbd: the cluster does not answer); the namespace is then ANA inaccessible.");
    for (auto &s : target.subsystems()) {
        if (s->is_discovery()) continue;
        for (auto &ns : s->namespaces())
            e.sample("skiff_namespace_accessible",
                     {{"subsystem", s->nqn()}, {"nsid", std::to_string(ns->nsid())}},
                     uint64_t(ns->device().accessible()));
    }
}

void write_listeners(Exposition &e, const TargetService &service) {
    const auto stats = service.listener_stats();
    auto labels = [](const TargetService::ListenerStats &l) {
        return Labels{{"listener", l.addr.str()}, {"transport", l.addr.trtype}};
    };
    e.family("skiff_listener_connections_accepted_total", "counter",
             "Connections accepted and handed to a poll group.");
    for (auto &l : stats) e.sample("skiff_listener_connections_accepted_total", labels(l), l.accepted);
    e.family("skiff_listener_connections_refused_total", "counter",
             "Connections refused at accept, by reason: connection_limit (max_connections or "
             "max_connections_per_host), no_file_descriptors (accept failed with EMFILE/ENFILE; the "
             "connection waits in the backlog).");
    for (auto &l : stats) {
        Labels a = labels(l), b = labels(l);
        a.push_back({"reason", "connection_limit"});
        b.push_back({"reason", "no_file_descriptors"});
        e.sample("skiff_listener_connections_refused_total", a, l.refused_limit);
        e.sample("skiff_listener_connections_refused_total", b, l.accept_failed);
    }
}

void write_poll_groups(Exposition &e, const TargetService &service) {
    auto labels = [](size_t i) { return Labels{{"group", std::to_string(i)}}; };
    e.family("skiff_poll_group_polls_total", "counter", "Passes of a poll group's loop.");
    for (size_t i = 0; i < service.group_count(); ++i)
        e.sample("skiff_poll_group_polls_total", labels(i), service.group(i).passes());
    e.family("skiff_poll_group_busy_polls_total", "counter",
             "Passes of a poll group's loop that found work; rate(busy) / rate(polls) is its busy ratio.");
    for (size_t i = 0; i < service.group_count(); ++i)
        e.sample("skiff_poll_group_busy_polls_total", labels(i), service.group(i).busy_passes());
    e.family("skiff_poll_group_dma_tasks_total", "counter",
             "DMA tasks the poll group's channels submitted (hostmem namespaces: host memory to and "
             "from the queues' buffers).");
    for (size_t i = 0; i < service.group_count(); ++i)
        e.sample("skiff_poll_group_dma_tasks_total", labels(i), service.group(i).dma_tasks());
    e.family("skiff_poll_group_dma_bytes_total", "counter", "Bytes those DMA tasks moved.");
    for (size_t i = 0; i < service.group_count(); ++i)
        e.sample("skiff_poll_group_dma_bytes_total", labels(i), service.group(i).dma_bytes());
    e.family("skiff_poll_group_connections", "gauge", "Connections a poll group drives.");
    for (size_t i = 0; i < service.group_count(); ++i)
        e.sample("skiff_poll_group_connections", labels(i), uint64_t(service.group(i).connection_count()));
}

} // namespace

std::string status_label(uint16_t error_key) {
    if (error_key == tgt::kOtherErrors) return "other";
    const char *name = nvmeof::host::status_code_name(uint8_t(error_key >> 8), uint8_t(error_key & 0xFF));
    std::string out;
    for (const char *p = name; *p; ++p) {
        const char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out += c;
        else if (c >= 'A' && c <= 'Z')
            out += char(c - 'A' + 'a');
        else if (!out.empty() && out.back() != '_')
            out += '_';
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out.empty() ? "unknown" : out;
}

std::string render_target_metrics(const nvmeof::target::Target &target, const TargetService *service) {
    Exposition e;
    const std::vector<NamespaceRow> rows = namespace_rows(target);
    write_namespace_counters(e, rows);
    write_namespace_qos(e, rows);
    write_namespace_errors(e, rows);
    write_namespace_latency(e, rows);
    write_controllers(e, target);
    write_host_events(e, target);
    write_ana(e, target);
    if (service) {
        write_listeners(e, *service);
        write_poll_groups(e, *service);
    }
    return e.take();
}

} // namespace skiff::dataplane::metrics
