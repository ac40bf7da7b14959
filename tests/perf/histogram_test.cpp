// skiff-perf's latency histogram: bucket edges, the error bound every percentile keeps, and
// percentiles of known distributions.
#include "histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using skiff::perf::LatencyHistogram;

TEST(perf_histogram, BucketsAreContiguousAndOrdered) {
    uint64_t expect_low = 0;
    for (unsigned b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
        ASSERT_EQ(LatencyHistogram::bucket_low(b), expect_low) << "bucket " << b;
        ASSERT_GE(LatencyHistogram::bucket_high(b), LatencyHistogram::bucket_low(b));
        expect_low = LatencyHistogram::bucket_high(b) + 1;
    }
}

TEST(perf_histogram, EveryValueLandsInTheBucketThatHoldsIt) {
    std::mt19937_64 rng(7);
    std::vector<uint64_t> values = {0, 1, 127, 128, 129, 255, 256, 1000, 65535, 65536, 1ull << 39};
    for (int i = 0; i < 100000; ++i) values.push_back(rng() >> (rng() % 39 + 25)); // shifts 25..63
    for (uint64_t v : values) {
        const unsigned b = LatencyHistogram::bucket_of(v);
        ASSERT_LE(LatencyHistogram::bucket_low(b), v) << v;
        ASSERT_GE(LatencyHistogram::bucket_high(b), v) << v;
    }
}

TEST(perf_histogram, BucketWidthIsBoundedRelativeToItsValues) {
    for (unsigned b = LatencyHistogram::kSubCount; b + 1 < LatencyHistogram::kBuckets; ++b) {
        const double low = double(LatencyHistogram::bucket_low(b));
        const double width = double(LatencyHistogram::bucket_high(b)) - low + 1;
        ASSERT_LE(width / low, LatencyHistogram::kRelativeError) << "bucket " << b;
    }
    // Below 2^kSubBits ns every value has its own bucket: exact.
    for (unsigned b = 0; b < LatencyHistogram::kSubCount; ++b)
        EXPECT_EQ(LatencyHistogram::bucket_low(b), LatencyHistogram::bucket_high(b));
}

TEST(perf_histogram, EmptyHistogramReportsZero) {
    LatencyHistogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.percentile(50), 0u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.mean(), 0.0);
}

TEST(perf_histogram, UniformOneToTenThousandMicroseconds) {
    // 1..10000 us once each: the p-th percentile is p * 100 us, read back within the bound.
    LatencyHistogram h;
    for (uint64_t us = 1; us <= 10000; ++us) h.record(us * 1000);
    EXPECT_EQ(h.count(), 10000u);
    EXPECT_EQ(h.min(), 1000u);
    EXPECT_EQ(h.max(), 10000000u);
    EXPECT_DOUBLE_EQ(h.mean(), 5000.5 * 1000);
    for (double p : {1.0, 10.0, 50.0, 90.0, 99.0, 99.9}) {
        const double exact = p * 100 * 1000;
        EXPECT_NEAR(double(h.percentile(p)), exact, exact * LatencyHistogram::kRelativeError) << "p" << p;
    }
    EXPECT_EQ(h.percentile(100), h.max());
}

TEST(perf_histogram, SkewedDistributionTailPercentiles) {
    // 990 fast I/Os at 20 us, 9 at 500 us, 1 at 5 ms: p50 20 us, p99 20 us, p99.9 500 us, max 5 ms.
    LatencyHistogram h;
    for (int i = 0; i < 990; ++i) h.record(20000);
    for (int i = 0; i < 9; ++i) h.record(500000);
    h.record(5000000);
    auto near = [](uint64_t got, double exact) { return std::abs(double(got) - exact) <= exact / 64; };
    EXPECT_TRUE(near(h.percentile(50), 20000)) << h.percentile(50);
    EXPECT_TRUE(near(h.percentile(99), 20000)) << h.percentile(99);
    EXPECT_TRUE(near(h.percentile(99.9), 500000)) << h.percentile(99.9);
    EXPECT_EQ(h.max(), 5000000u);
}

TEST(perf_histogram, RandomSamplesAgreeWithSortedPercentiles) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> dist(std::log(30000.0), 0.8); // ~30 us median, long tail
    std::vector<uint64_t> samples;
    LatencyHistogram h;
    for (int i = 0; i < 200000; ++i) {
        const uint64_t v = static_cast<uint64_t>(dist(rng));
        samples.push_back(v);
        h.record(v);
    }
    std::sort(samples.begin(), samples.end());
    for (double p : {50.0, 90.0, 99.0, 99.9}) {
        const size_t rank = static_cast<size_t>(std::ceil(p / 100 * samples.size())) - 1;
        const double exact = double(samples[rank]);
        EXPECT_NEAR(double(h.percentile(p)), exact, exact * LatencyHistogram::kRelativeError) << "p" << p;
    }
}

TEST(perf_histogram, MergeEqualsRecordingEverythingInOne) {
    LatencyHistogram a, b, all;
    for (uint64_t v = 100; v < 50000; v += 37) (v % 2 ? a : b).record(v), all.record(v);
    a.merge(b);
    EXPECT_EQ(a.count(), all.count());
    EXPECT_EQ(a.min(), all.min());
    EXPECT_EQ(a.max(), all.max());
    EXPECT_DOUBLE_EQ(a.mean(), all.mean());
    for (double p : {1.0, 50.0, 99.0}) EXPECT_EQ(a.percentile(p), all.percentile(p));
}
