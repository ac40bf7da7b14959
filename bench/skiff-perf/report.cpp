#include "report.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace skiff::perf {

LatencyFigures latency_figures(const LatencyHistogram &h) {
    auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
    return {h.mean() / 1000.0,    us(h.min()),          us(h.percentile(50)),
            us(h.percentile(90)), us(h.percentile(99)), us(h.percentile(99.9)),
            us(h.max())};
}

double mib_per_s(const RunSummary &s, uint32_t bs) {
    return s.iops() * bs / (1024.0 * 1024.0);
}

nlohmann::json to_json(const PerfOptions &o, const RunSummary &s, const std::string &target) {
    const LatencyFigures l = latency_figures(s.latency);
    nlohmann::json j;
    j["tool"] = "skiff-perf";
    j["target"] = target;
    j["transport"] = o.transport;
    j["rw"] = pattern_name(o.rw);
    if (o.rw == Pattern::kRandRw) j["rwmixread"] = o.rwmixread;
    j["bs"] = o.bs;
    j["qd"] = o.qd;
    j["queues"] = o.queues;
    j["cores"] = o.cores;
    j["seconds"] = s.seconds;
    j["ios"] = s.ios();
    j["reads"] = s.reads;
    j["writes"] = s.writes;
    // Every command completed, ramp and drain included: comparable with the target's counters.
    j["all_reads"] = s.all_reads;
    j["all_writes"] = s.all_writes;
    j["iops"] = s.iops();
    j["mib_s"] = mib_per_s(s, o.bs);
    j["verify"] = o.verify;
    if (o.verify) j["verified_blocks"] = s.verified_blocks;
    j["latency_us"] = {{"avg", l.avg}, {"min", l.min},    {"p50", l.p50}, {"p90", l.p90},
                       {"p99", l.p99}, {"p99.9", l.p999}, {"max", l.max}};
    const double all = s.all_ios ? static_cast<double>(s.all_ios) : 1.0;
    j["syscalls_per_io"] = {{"send", s.calls.sends / all},
                            {"receive", s.calls.reads / all},
                            {"empty_receive", s.calls.empty_reads / all}};
    return j;
}

std::string to_text(const PerfOptions &o, const RunSummary &s) {
    const LatencyFigures l = latency_figures(s.latency);
    char buf[512];
    int n = std::snprintf(
        buf, sizeof(buf),
        "%s bs=%u qd=%u queues=%u: %.0f IOPS, %.1f MiB/s (%llu I/Os in %.2f s)\n"
        "latency (us): avg %.1f  min %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f\n",
        pattern_name(o.rw), o.bs, o.qd, o.queues, s.iops(), mib_per_s(s, o.bs),
        static_cast<unsigned long long>(s.ios()), s.seconds, l.avg, l.min, l.p50, l.p90, l.p99, l.p999,
        l.max);
    std::string out(buf, static_cast<size_t>(n));
    if (s.all_ios > 0) {
        const double all = static_cast<double>(s.all_ios);
        n = std::snprintf(buf, sizeof(buf),
                          "system calls per I/O: %.3f send, %.3f receive (+ %.2f empty receives while "
                          "busy-polling)\n",
                          s.calls.sends / all, s.calls.reads / all, s.calls.empty_reads / all);
        out.append(buf, static_cast<size_t>(n));
    }
    if (o.verify) out += "verify: " + std::to_string(s.verified_blocks) + " blocks read back and checked\n";
    return out;
}

std::string short_count(double v) {
    char buf[32];
    if (v >= 1e6)
        std::snprintf(buf, sizeof(buf), "%.2fM", v / 1e6);
    else if (v >= 1e3)
        std::snprintf(buf, sizeof(buf), "%.1fK", v / 1e3);
    else
        std::snprintf(buf, sizeof(buf), "%.0f", v);
    return buf;
}

} // namespace skiff::perf
