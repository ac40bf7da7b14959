#include "skiff/dataplane/stats/io_stats.hpp"

#include "skiff/nvmeof/target/latency_histogram.hpp"
#include "skiff/nvmeof/target/monotonic_clock.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstdio>

namespace skiff::dataplane::stats {

using nlohmann::json;
namespace tgt = nvmeof::target;

const char *const kAccountingOffMessage =
    "I/O accounting is off on this target: start skiff-target with --io-accounting (or --metrics "
    "ADDR:PORT), or set \"metrics\": {\"accounting\": true} in its configuration file and restart it";

namespace {

const char *const kOpNames[kOps] = {"read", "write", "other"};

std::string hex(unsigned v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%x", v);
    return buf;
}

json op_json(const tgt::NamespaceIoTotals &t, size_t k) {
    const tgt::LatencyTotals &h = t.latency[k];
    const uint64_t bytes = k == size_t(tgt::IoKind::kRead)    ? t.read_bytes
                           : k == size_t(tgt::IoKind::kWrite) ? t.write_bytes
                                                              : 0;
    return {{"commands", t.commands[k]},
            {"bytes", bytes},
            {"latency_buckets", h.buckets},
            {"latency_sum_ns", h.sum_ns}};
}

json row_json(const std::string &subsystem, uint32_t nsid, const tgt::NamespaceIoTotals &t) {
    json row = {{"subsystem", subsystem}, {"nsid", nsid}};
    for (size_t k = 0; k < kOps; ++k) row[kOpNames[k]] = op_json(t, k);
    uint64_t errors = 0;
    json by_status = json::object();
    for (auto &[key, n] : t.errors) {
        errors += n;
        by_status[key == tgt::kOtherErrors ? std::string("other") : hex(key)] = n;
    }
    row["errors"] = errors;
    row["errors_by_status"] = by_status;
    return row;
}

} // namespace

Result<json> io_stats_json(const tgt::Target &target, const std::optional<std::string> &subsystem) {
    if (!target.metrics_enabled()) return make_error(DOCA_ERROR_NOT_PERMITTED, kAccountingOffMessage);
    if (subsystem) {
        auto s = target.find_subsystem(*subsystem);
        if (!s || s->is_discovery())
            return make_error(DOCA_ERROR_NOT_FOUND,
                              "params.subsystem: no subsystem named \"" + *subsystem + "\"");
    }
    json out = {{"time_ns", tgt::monotonic_ns()},
                {"latency_bounds_ns", tgt::kLatencyBoundsNs},
                {"namespaces", json::array()},
                {"hosts", json::array()}};
    for (auto &s : target.subsystems()) {
        if (s->is_discovery() || (subsystem && s->nqn() != *subsystem)) continue;
        tgt::SubsystemIoMetrics::Snapshot snap = s->io_metrics()->snapshot();
        // Every namespace present has a row, zeros included; hosts have rows for the namespaces
        // they sent commands to (those present now).
        for (auto &ns : s->namespaces())
            out["namespaces"].push_back(row_json(s->nqn(), ns->nsid(), snap.namespaces[ns->nsid()]));
        for (auto &[host, per_ns] : snap.hosts)
            for (auto &[nsid, t] : per_ns) {
                if (!s->find_namespace(nsid)) continue;
                json row = row_json(s->nqn(), nsid, t);
                row["hostnqn"] = host;
                out["hosts"].push_back(std::move(row));
            }
    }
    return out;
}

namespace {

// A count: an integer >= 0 (a parsed answer holds unsigned numbers, one built in code signed ones).
bool is_count(const json &v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

struct Reader {
    std::string error;

    const json *member(const json &o, const std::string &path, const char *key) {
        if (!error.empty()) return nullptr;
        if (!o.is_object() || !o.contains(key)) {
            error = path + "." + key + ": missing";
            return nullptr;
        }
        return &o[key];
    }
    uint64_t number(const json &o, const std::string &path, const char *key) {
        const json *v = member(o, path, key);
        if (!v) return 0;
        if (!is_count(*v)) {
            error = path + "." + key + ": expected a number >= 0, got " + v->dump();
            return 0;
        }
        return v->get<uint64_t>();
    }
    std::string text(const json &o, const std::string &path, const char *key) {
        const json *v = member(o, path, key);
        if (!v) return "";
        if (!v->is_string()) {
            error = path + "." + key + ": expected a string, got " + v->dump();
            return "";
        }
        return v->get<std::string>();
    }
    std::vector<uint64_t> numbers(const json &o, const std::string &path, const char *key, size_t size) {
        const json *v = member(o, path, key);
        std::vector<uint64_t> out;
        if (!v) return out;
        if (!v->is_array() || v->size() != size) {
            error = path + "." + key + ": expected an array of " + std::to_string(size) + " numbers";
            return out;
        }
        for (auto &e : *v) {
            if (!is_count(e)) {
                error = path + "." + key + ": expected numbers >= 0, got " + e.dump();
                return {};
            }
            out.push_back(e.get<uint64_t>());
        }
        return out;
    }

    IoRow row(const json &r, const std::string &path, bool host, size_t buckets) {
        IoRow out;
        out.subsystem = text(r, path, "subsystem");
        out.nsid = uint32_t(number(r, path, "nsid"));
        if (host) out.hostnqn = text(r, path, "hostnqn");
        for (size_t k = 0; k < kOps; ++k) {
            const json *op = member(r, path, kOpNames[k]);
            if (!op) break;
            const std::string p = path + "." + kOpNames[k];
            out.ops[k].commands = number(*op, p, "commands");
            out.ops[k].bytes = number(*op, p, "bytes");
            out.ops[k].latency_buckets = numbers(*op, p, "latency_buckets", buckets);
            out.ops[k].latency_sum_ns = number(*op, p, "latency_sum_ns");
        }
        out.errors = number(r, path, "errors");
        return out;
    }

    std::vector<IoRow> rows(const json &j, const char *key, bool host, size_t buckets) {
        std::vector<IoRow> out;
        const json *list = member(j, "", key);
        if (!list) return out;
        if (!list->is_array()) {
            error = std::string(key) + ": expected an array";
            return out;
        }
        for (size_t i = 0; i < list->size() && error.empty(); ++i)
            out.push_back(row((*list)[i], std::string(key) + "[" + std::to_string(i) + "]", host, buckets));
        return out;
    }
};

} // namespace

Result<IoSample> parse_io_stats(const json &j) {
    Reader r;
    IoSample s;
    s.time_ns = r.number(j, "", "time_ns");
    const json *bounds = r.member(j, "", "latency_bounds_ns");
    if (bounds && bounds->is_array())
        s.latency_bounds_ns = r.numbers(j, "", "latency_bounds_ns", bounds->size());
    else if (bounds)
        r.error = ".latency_bounds_ns: expected an array";
    s.namespaces = r.rows(j, "namespaces", false, s.latency_bounds_ns.size() + 1);
    s.hosts = r.rows(j, "hosts", true, s.latency_bounds_ns.size() + 1);
    if (!r.error.empty()) {
        std::string e = r.error[0] == '.' ? r.error.substr(1) : r.error;
        return make_error(DOCA_ERROR_INVALID_VALUE, "io_stats answer: " + e);
    }
    return s;
}

} // namespace skiff::dataplane::stats
