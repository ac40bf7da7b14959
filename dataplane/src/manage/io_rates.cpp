#include "skiff/dataplane/stats/io_rates.hpp"

#include <algorithm>
#include <tuple>

namespace skiff::dataplane::stats {

std::optional<double> percentile_ns(const std::vector<uint64_t> &buckets,
                                    const std::vector<uint64_t> &bounds_ns, double q) {
    uint64_t total = 0;
    for (uint64_t n : buckets) total += n;
    if (total == 0 || buckets.empty()) return std::nullopt;
    q = std::clamp(q, 0.0, 1.0);
    const double rank = q * double(total);
    uint64_t below = 0; // commands in the buckets before i
    for (size_t i = 0; i < buckets.size(); ++i) {
        const uint64_t n = buckets[i];
        if (n == 0 || double(below + n) < rank) {
            below += n;
            continue;
        }
        // The last bucket has no upper bound: its lower one is all that is known.
        if (i >= bounds_ns.size())
            return bounds_ns.empty() ? std::nullopt : std::optional<double>(bounds_ns.back());
        const double lo = i == 0 ? 0.0 : double(bounds_ns[i - 1]);
        const double hi = double(bounds_ns[i]);
        const double within = (rank - double(below)) / double(n);
        return lo + (hi - lo) * std::clamp(within, 0.0, 1.0);
    }
    return bounds_ns.empty() ? std::nullopt : std::optional<double>(bounds_ns.back());
}

namespace {

uint64_t minus(uint64_t before, uint64_t after) {
    return after >= before ? after - before : after;
}

} // namespace

OpCounts delta(const OpCounts &before, const OpCounts &after) {
    // A target that restarted has every counter smaller or equal; one counter that went back is
    // enough to take all of `after` as the difference, so the fields stay consistent.
    bool reset = after.commands < before.commands || after.bytes < before.bytes ||
                 after.latency_sum_ns < before.latency_sum_ns ||
                 after.latency_buckets.size() != before.latency_buckets.size();
    for (size_t i = 0; !reset && i < after.latency_buckets.size(); ++i)
        reset = after.latency_buckets[i] < before.latency_buckets[i];
    if (reset) return after;
    OpCounts d;
    d.commands = minus(before.commands, after.commands);
    d.bytes = minus(before.bytes, after.bytes);
    d.latency_sum_ns = minus(before.latency_sum_ns, after.latency_sum_ns);
    d.latency_buckets.resize(after.latency_buckets.size());
    for (size_t i = 0; i < after.latency_buckets.size(); ++i)
        d.latency_buckets[i] = minus(before.latency_buckets[i], after.latency_buckets[i]);
    return d;
}

OpRates op_rates(const OpCounts &before, const OpCounts &after, const std::vector<uint64_t> &bounds_ns,
                 double seconds) {
    const OpCounts d = delta(before, after);
    OpRates r;
    r.commands = d.commands;
    r.bytes = d.bytes;
    if (seconds > 0) {
        r.iops = double(d.commands) / seconds;
        r.mb_per_s = double(d.bytes) / seconds / 1e6;
    }
    uint64_t timed = 0; // commands the histogram counted (every completed one)
    for (uint64_t n : d.latency_buckets) timed += n;
    if (timed) {
        r.avg_us = double(d.latency_sum_ns) / double(timed) / 1e3;
        r.p50_us = *percentile_ns(d.latency_buckets, bounds_ns, 0.50) / 1e3;
        r.p99_us = *percentile_ns(d.latency_buckets, bounds_ns, 0.99) / 1e3;
    }
    return r;
}

std::vector<RowRates> rates(const std::vector<IoRow> &before, const std::vector<IoRow> &after,
                            const std::vector<uint64_t> &bounds_ns, double seconds) {
    auto key = [](const IoRow &r) { return std::tie(r.subsystem, r.nsid, r.hostnqn); };
    std::vector<RowRates> out;
    for (const IoRow &a : after) {
        auto b = std::find_if(before.begin(), before.end(), [&](const IoRow &x) { return key(x) == key(a); });
        const IoRow zero{};
        const IoRow &from = b == before.end() ? zero : *b;
        RowRates r{a.subsystem, a.nsid, a.hostnqn, {}, 0};
        for (size_t k = 0; k < kOps; ++k) {
            OpCounts f = from.ops[k];
            if (f.latency_buckets.empty()) f.latency_buckets.assign(a.ops[k].latency_buckets.size(), 0);
            r.ops[k] = op_rates(f, a.ops[k], bounds_ns, seconds);
        }
        r.errors = minus(from.errors, a.errors);
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace skiff::dataplane::stats
