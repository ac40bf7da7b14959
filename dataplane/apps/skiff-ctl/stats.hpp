// skiff-ctl stats: samples the target's io_stats method every interval and prints what changed
// (IOPS, MB/s, latency per namespace, optionally per host) as a table or as JSON lines.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace skiff::ctl {

struct StatsOptions {
    double interval_s = 1.0;
    uint64_t count = 0; // reports to print; 0: until interrupted
    bool json = false;
    bool hosts = false;
    std::string subsystem; // empty: every subsystem
};

// Sends one request, answers the response object ({"result": ...} or {"error": ...}).
using Call = std::function<nlohmann::json(const std::string &method, const nlohmann::json &params)>;

// Runs the sampling loop; the exit status (0, or 1 with the reason on stderr).
int run_stats(const StatsOptions &o, const Call &call);

} // namespace skiff::ctl
