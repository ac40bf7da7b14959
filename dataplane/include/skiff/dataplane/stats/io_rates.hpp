// What skiff-ctl stats prints: the difference of two io_stats samples (io_stats.hpp) as rates
// (IOPS, MB/s) and latencies (average, percentiles) per row. The percentiles come from the
// target's latency histogram: interpolated linearly inside the bucket the rank falls in, as
// Prometheus' histogram_quantile does, so they are estimates within that bucket's bounds (1-2-5
// per decade). A rank in the last bucket (slower than the last bound) reports that bound.
#pragma once

#include "skiff/dataplane/stats/io_stats.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::dataplane::stats {

// The q-quantile (0 < q <= 1) in nanoseconds of a histogram with per-bucket counts `buckets`
// (bounds.size() + 1 of them, the last above the last bound): nullopt when it counts nothing.
std::optional<double> percentile_ns(const std::vector<uint64_t> &buckets,
                                    const std::vector<uint64_t> &bounds_ns, double q);

// after - before, counter by counter; a counter that went backwards (the target restarted) counts
// from zero: the difference is its value in `after`.
OpCounts delta(const OpCounts &before, const OpCounts &after);

struct OpRates {
    uint64_t commands = 0; // in the interval
    uint64_t bytes = 0;
    double iops = 0;
    double mb_per_s = 0; // 10^6 bytes per second
    // Over the commands of the interval; nullopt without any.
    std::optional<double> avg_us, p50_us, p99_us;
};

struct RowRates {
    std::string subsystem;
    uint32_t nsid = 0;
    std::string hostnqn; // empty: the namespace (every host)
    std::array<OpRates, kOps> ops;
    uint64_t errors = 0; // in the interval
};

// The rates of `after` against `before` over `seconds` (after.time_ns - before.time_ns, in s).
// A row of `after` that `before` lacks (a host that connected since) counts from zero.
OpRates op_rates(const OpCounts &before, const OpCounts &after, const std::vector<uint64_t> &bounds_ns,
                 double seconds);
std::vector<RowRates> rates(const std::vector<IoRow> &before, const std::vector<IoRow> &after,
                            const std::vector<uint64_t> &bounds_ns, double seconds);

} // namespace skiff::dataplane::stats
