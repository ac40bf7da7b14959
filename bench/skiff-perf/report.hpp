// The result of a run, as text for people and as JSON for scripts (bench/run reads the JSON).
#pragma once

#include "histogram.hpp"
#include "options.hpp"
#include "session.hpp"

// nlohmann::json declared only: the files that build or read documents include <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace skiff::perf {

struct RunSummary {
    double seconds = 0; // measured window
    uint64_t reads = 0, writes = 0;
    uint64_t verified_blocks = 0;
    LatencyHistogram latency;
    uint64_t all_ios = 0;                   // ramp and drain included: what `calls` were spent on
    uint64_t all_reads = 0, all_writes = 0; // all_ios by kind: what the target's counters saw
    TransportCalls calls;

    uint64_t ios() const { return reads + writes; }
    double iops() const { return seconds > 0 ? static_cast<double>(ios()) / seconds : 0.0; }
};

// Latency figures in microseconds.
struct LatencyFigures {
    double avg = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};
LatencyFigures latency_figures(const LatencyHistogram &h);

double mib_per_s(const RunSummary &s, uint32_t bs);
nlohmann::json to_json(const PerfOptions &o, const RunSummary &s, const std::string &target);
std::string to_text(const PerfOptions &o, const RunSummary &s);
// "245.1K" style for progress lines.
std::string short_count(double v);

} // namespace skiff::perf
