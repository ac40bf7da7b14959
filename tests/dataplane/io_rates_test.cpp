// skiff-ctl stats' arithmetic (stats/io_rates.hpp): percentiles interpolated within histogram
// buckets, differences of cumulative counters (and a target that restarted), rates per second,
// and the io_stats answer read back (stats/io_stats.hpp).
#include "skiff/dataplane/stats/io_rates.hpp"
#include "skiff/dataplane/stats/io_stats.hpp"

#include <gtest/gtest.h>

namespace skiff::dataplane::stats {
namespace {

using nlohmann::json;

const std::vector<uint64_t> kBounds = {1000, 2000, 5000}; // ns; 4 buckets, the last above 5 us

TEST(IoRatesPercentile, InterpolatesWithinTheBucketTheRankFallsIn) {
    // 10 commands in (1, 2] us: the median is half way through that bucket.
    EXPECT_DOUBLE_EQ(*percentile_ns({0, 10, 0, 0}, kBounds, 0.5), 1500.0);
    // 1 in [0, 1] us and 3 in (2, 5] us: rank 2 is the first third of the third bucket.
    EXPECT_DOUBLE_EQ(*percentile_ns({1, 0, 3, 0}, kBounds, 0.5), 3000.0);
    EXPECT_DOUBLE_EQ(*percentile_ns({1, 0, 3, 0}, kBounds, 0.25), 1000.0); // the first bucket's end
    EXPECT_DOUBLE_EQ(*percentile_ns({4, 0, 0, 0}, kBounds, 0.5), 500.0);   // from 0 in the first
    // p99 of 100 commands, 98 fast and 2 in (2, 5] us: rank 99 is half way through that bucket.
    EXPECT_DOUBLE_EQ(*percentile_ns({98, 0, 2, 0}, kBounds, 0.99), 3500.0);
    EXPECT_DOUBLE_EQ(*percentile_ns({98, 0, 2, 0}, kBounds, 1.0), 5000.0);
}

TEST(IoRatesPercentile, TheOpenLastBucketReportsTheLastBoundAndNothingCountedIsNone) {
    EXPECT_DOUBLE_EQ(*percentile_ns({0, 0, 0, 7}, kBounds, 0.5), 5000.0);
    EXPECT_DOUBLE_EQ(*percentile_ns({50, 0, 0, 50}, kBounds, 0.99), 5000.0);
    EXPECT_FALSE(percentile_ns({0, 0, 0, 0}, kBounds, 0.5).has_value());
}

OpCounts counts(uint64_t commands, uint64_t bytes, std::vector<uint64_t> buckets, uint64_t sum_ns) {
    return {commands, bytes, std::move(buckets), sum_ns};
}

TEST(IoRatesDelta, DifferencesPerCounterAndRatesOverTheInterval) {
    const OpCounts before = counts(100, 409600, {10, 80, 10, 0}, 200'000);
    const OpCounts after = counts(300, 1228800, {10, 80, 210, 0}, 200'000 + 200 * 4000);
    const OpCounts d = delta(before, after);
    EXPECT_EQ(d.commands, 200u);
    EXPECT_EQ(d.bytes, 819200u);
    EXPECT_EQ(d.latency_buckets, (std::vector<uint64_t>{0, 0, 200, 0}));
    EXPECT_EQ(d.latency_sum_ns, 800'000u);

    const OpRates r = op_rates(before, after, kBounds, 2.0);
    EXPECT_EQ(r.commands, 200u);
    EXPECT_DOUBLE_EQ(r.iops, 100.0);
    EXPECT_DOUBLE_EQ(r.mb_per_s, 0.4096);
    EXPECT_DOUBLE_EQ(*r.avg_us, 4.0);
    EXPECT_DOUBLE_EQ(*r.p50_us, 3.5); // only this interval's commands: all in (2, 5] us
    EXPECT_DOUBLE_EQ(*r.p99_us, 4.97);
}

TEST(IoRatesDelta, AnIdleIntervalHasNoLatencyAndARestartedTargetCountsFromZero) {
    const OpCounts same = counts(5, 2560, {5, 0, 0, 0}, 2500);
    const OpRates idle = op_rates(same, same, kBounds, 1.0);
    EXPECT_EQ(idle.commands, 0u);
    EXPECT_DOUBLE_EQ(idle.iops, 0.0);
    EXPECT_FALSE(idle.avg_us.has_value());
    EXPECT_FALSE(idle.p99_us.has_value());
    // The counters went back: the target restarted, `after` is what it did since.
    const OpCounts restarted = counts(3, 1536, {0, 3, 0, 0}, 4500);
    const OpCounts d = delta(counts(1000, 512000, {900, 100, 0, 0}, 1'000'000), restarted);
    EXPECT_EQ(d.commands, 3u);
    EXPECT_EQ(d.latency_buckets, restarted.latency_buckets);
    EXPECT_EQ(d.latency_sum_ns, 4500u);
}

IoRow row(std::string host, uint64_t reads) {
    IoRow r;
    r.subsystem = "nqn.s";
    r.nsid = 1;
    r.hostnqn = std::move(host);
    for (auto &op : r.ops) op.latency_buckets.assign(4, 0);
    r.ops[size_t(Op::kRead)] = counts(reads, reads * 4096, {0, reads, 0, 0}, reads * 1500);
    return r;
}

TEST(IoRatesRows, ARowNewInTheLaterSampleCountsFromZero) {
    const std::vector<IoRow> before = {row("nqn.host-a", 10)};
    const std::vector<IoRow> after = {row("nqn.host-a", 30), row("nqn.host-b", 7)};
    const std::vector<RowRates> r = rates(before, after, kBounds, 1.0);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].hostnqn, "nqn.host-a");
    EXPECT_EQ(r[0].ops[size_t(Op::kRead)].commands, 20u);
    EXPECT_EQ(r[1].hostnqn, "nqn.host-b");
    EXPECT_EQ(r[1].ops[size_t(Op::kRead)].commands, 7u);
    EXPECT_DOUBLE_EQ(*r[1].ops[size_t(Op::kRead)].avg_us, 1.5);
    EXPECT_EQ(r[1].ops[size_t(Op::kWrite)].commands, 0u);
}

json op(uint64_t commands, uint64_t bytes) {
    return {{"commands", commands},
            {"bytes", bytes},
            {"latency_buckets", {commands, 0, 0, 0}},
            {"latency_sum_ns", 0}};
}

TEST(IoStatsAnswer, ReadsBackAndNamesWhatIsWrong) {
    json j = {{"time_ns", 42},
              {"latency_bounds_ns", kBounds},
              {"namespaces",
               {{{"subsystem", "nqn.s"},
                 {"nsid", 1},
                 {"read", op(2, 8192)},
                 {"write", op(1, 512)},
                 {"other", op(0, 0)},
                 {"errors", 0},
                 {"errors_by_status", json::object()}}}},
              {"hosts", json::array()}};
    auto s = parse_io_stats(j);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->time_ns, 42u);
    ASSERT_EQ(s->namespaces.size(), 1u);
    EXPECT_EQ(s->namespaces[0].ops[size_t(Op::kRead)].bytes, 8192u);
    EXPECT_EQ(s->namespaces[0].ops[size_t(Op::kWrite)].commands, 1u);

    j["namespaces"][0]["write"]["latency_buckets"] = {1, 2};
    auto bad = parse_io_stats(j);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message,
              "io_stats answer: namespaces[0].write.latency_buckets: expected an array of 4 numbers");
    j.erase("time_ns");
    EXPECT_EQ(parse_io_stats(j).error().message, "io_stats answer: time_ns: missing");
}

} // namespace
} // namespace skiff::dataplane::stats
