// Server-side command latency as a fixed histogram: bucket bounds 1-2-5 per decade from 1 us to
// 1 s, then one bucket for everything slower. Each queue owns its own (one writer, no lock, no
// allocation); whoever reports latency sums the totals of every queue.
#pragma once

#include "skiff/nvmeof/target/single_writer.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::target {

// Upper bounds of the buckets in nanoseconds (inclusive, as Prometheus' "le").
inline constexpr std::array<uint64_t, 19> kLatencyBoundsNs = {
    1'000,      2'000,       5'000,       10'000,      20'000,       50'000,     100'000,
    200'000,    500'000,     1'000'000,   2'000'000,   5'000'000,    10'000'000, 20'000'000,
    50'000'000, 100'000'000, 200'000'000, 500'000'000, 1'000'000'000};
// One bucket per bound, and the last for anything above 1 s.
inline constexpr size_t kLatencyBuckets = kLatencyBoundsNs.size() + 1;

// A snapshot: per-bucket (not cumulative) counts and the sum of the latencies.
struct LatencyTotals {
    std::array<uint64_t, kLatencyBuckets> buckets{};
    uint64_t sum_ns = 0;

    uint64_t count() const {
        uint64_t n = 0;
        for (uint64_t b : buckets) n += b;
        return n;
    }
    LatencyTotals &operator+=(const LatencyTotals &o) {
        for (size_t i = 0; i < kLatencyBuckets; ++i) buckets[i] += o.buckets[i];
        sum_ns += o.sum_ns;
        return *this;
    }
};

// Written by one thread (the queue's poll group), read by any.
class LatencyHistogram {
  public:
    void record(uint64_t ns) {
        single_writer_add(buckets_[bucket_of(ns)], 1);
        single_writer_add(sum_ns_, ns);
    }
    LatencyTotals totals() const {
        LatencyTotals t;
        for (size_t i = 0; i < kLatencyBuckets; ++i) t.buckets[i] = relaxed(buckets_[i]);
        t.sum_ns = relaxed(sum_ns_);
        return t;
    }
    // The first bucket whose bound is at least ns; 19 compares at most, usually a handful.
    static size_t bucket_of(uint64_t ns) {
        size_t i = 0;
        while (i < kLatencyBoundsNs.size() && ns > kLatencyBoundsNs[i]) ++i;
        return i;
    }

  private:
    std::array<std::atomic<uint64_t>, kLatencyBuckets> buckets_{};
    std::atomic<uint64_t> sum_ns_{0};
};

} // namespace skiff::nvmeof::target
