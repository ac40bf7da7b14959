#include "stats.hpp"

#include "skiff/dataplane/stats/io_rates.hpp"
#include "skiff/dataplane/stats/io_stats.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace skiff::ctl {
namespace {

using nlohmann::json;
namespace st = skiff::dataplane::stats;

// UTC wall-clock time of a report, to the second (the interval itself is the target's).
std::string utc_now() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

json maybe(const std::optional<double> &v) {
    return v ? json(*v) : json(nullptr);
}

json op_json(const st::OpRates &r) {
    return {{"commands", r.commands},   {"bytes", r.bytes},          {"iops", r.iops},
            {"mb_per_s", r.mb_per_s},   {"avg_us", maybe(r.avg_us)}, {"p50_us", maybe(r.p50_us)},
            {"p99_us", maybe(r.p99_us)}};
}

json row_json(const st::RowRates &r) {
    json j = {{"subsystem", r.subsystem}, {"nsid", r.nsid}};
    if (!r.hostnqn.empty()) j["hostnqn"] = r.hostnqn;
    j["read"] = op_json(r.ops[size_t(st::Op::kRead)]);
    j["write"] = op_json(r.ops[size_t(st::Op::kWrite)]);
    j["other"] = op_json(r.ops[size_t(st::Op::kOther)]);
    j["errors"] = r.errors;
    return j;
}

std::string number(double v, int decimals) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

std::string latency(const std::optional<double> &us) {
    return us ? number(*us, *us < 100 ? 1 : 0) : "-";
}

// One table: a line per namespace, its hosts' lines under it (--hosts).
void print_table(const std::vector<st::RowRates> &ns, const std::vector<st::RowRates> &hosts, double seconds,
                 bool with_hosts) {
    struct Line {
        std::string name;
        const st::RowRates *r;
    };
    std::vector<Line> lines;
    for (const st::RowRates &n : ns) {
        lines.push_back({n.subsystem + " ns " + std::to_string(n.nsid), &n});
        if (!with_hosts) continue;
        for (const st::RowRates &h : hosts)
            if (h.subsystem == n.subsystem && h.nsid == n.nsid) lines.push_back({"  host " + h.hostnqn, &h});
    }
    size_t width = 9;
    for (const Line &l : lines) width = std::max(width, l.name.size());
    std::printf(
        "%s  interval %.2f s  (latency in us, target side; p50/p99 interpolated in histogram buckets)\n",
        utc_now().c_str(), seconds);
    std::printf("%-*s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6s\n", int(width), "namespace", "r/s",
                "w/s", "rMB/s", "wMB/s", "r_avg", "r_p50", "r_p99", "w_avg", "w_p50", "w_p99", "other/s",
                "err");
    for (const Line &l : lines) {
        const st::OpRates &r = l.r->ops[size_t(st::Op::kRead)];
        const st::OpRates &w = l.r->ops[size_t(st::Op::kWrite)];
        const st::OpRates &o = l.r->ops[size_t(st::Op::kOther)];
        std::printf("%-*s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6llu\n", int(width), l.name.c_str(),
                    number(r.iops, 0).c_str(), number(w.iops, 0).c_str(), number(r.mb_per_s, 2).c_str(),
                    number(w.mb_per_s, 2).c_str(), latency(r.avg_us).c_str(), latency(r.p50_us).c_str(),
                    latency(r.p99_us).c_str(), latency(w.avg_us).c_str(), latency(w.p50_us).c_str(),
                    latency(w.p99_us).c_str(), number(o.iops, 0).c_str(), (unsigned long long)l.r->errors);
    }
    if (lines.empty()) std::printf("(no namespaces)\n");
    std::printf("\n");
}

// One io_stats sample, or the reason there is none (printed by the caller).
Result<st::IoSample> sample(const StatsOptions &o, const Call &call) {
    json params = json::object();
    if (!o.subsystem.empty()) params["subsystem"] = o.subsystem;
    json resp = call("io_stats", params);
    if (resp.contains("error"))
        return make_error(DOCA_ERROR_IO_FAILED, resp["error"].value("message", std::string("failed")));
    if (!resp.contains("result"))
        return make_error(DOCA_ERROR_IO_FAILED, "io_stats: an answer without a result");
    return st::parse_io_stats(resp["result"]);
}

} // namespace

int run_stats(const StatsOptions &o, const Call &call) {
    auto prev = sample(o, call);
    if (!prev) {
        std::fprintf(stderr, "skiff-ctl: %s\n", prev.error().message.c_str());
        return 1;
    }
    // Deadlines on the steady clock, so printing and the round trip do not stretch the intervals;
    // the rates use the target's own timestamps of the two samples.
    const auto period = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(o.interval_s));
    auto next = std::chrono::steady_clock::now();
    for (uint64_t n = 0; o.count == 0 || n < o.count; ++n) {
        next += period;
        std::this_thread::sleep_until(next);
        auto cur = sample(o, call);
        if (!cur) {
            std::fprintf(stderr, "skiff-ctl: %s\n", cur.error().message.c_str());
            return 1;
        }
        const double seconds = double(cur->time_ns - std::min(prev->time_ns, cur->time_ns)) / 1e9;
        const auto ns = st::rates(prev->namespaces, cur->namespaces, cur->latency_bounds_ns, seconds);
        const auto hosts = st::rates(prev->hosts, cur->hosts, cur->latency_bounds_ns, seconds);
        if (o.json) {
            json line = {{"time", utc_now()}, {"interval_s", seconds}, {"namespaces", json::array()}};
            for (auto &r : ns) line["namespaces"].push_back(row_json(r));
            if (o.hosts) {
                line["hosts"] = json::array();
                for (auto &r : hosts) line["hosts"].push_back(row_json(r));
            }
            std::printf("%s\n", line.dump().c_str());
        } else {
            print_table(ns, hosts, seconds, o.hosts);
        }
        std::fflush(stdout);
        prev = std::move(cur);
    }
    return 0;
}

} // namespace skiff::ctl
