// A latency histogram with log-linear buckets (HdrHistogram's layout, our own code): values
// below 2^kSubBits ns get one bucket each; above that, every power of two is split into
// 2^(kSubBits-1) equal buckets. A bucket's width is then at most 1/2^(kSubBits-1) of its lower
// edge, so any percentile read back is within that relative error of the true value (about
// 1.6 % with kSubBits = 7). The bucket array is fixed-size and lives inside the object: recording
// is an index computation and an increment, nothing is allocated per I/O.
#pragma once

#include <array>
#include <cstdint>

namespace skiff::perf {

class LatencyHistogram {
  public:
    static constexpr unsigned kSubBits = 7;               // 128 linear buckets below 128 ns
    static constexpr unsigned kSubCount = 1u << kSubBits; // buckets in the first (linear) range
    static constexpr unsigned kHalf = kSubCount / 2;      // buckets per later power of two
    static constexpr unsigned kMaxExponent = 40;          // up to 2^40 ns (~18 minutes)
    static constexpr unsigned kBuckets = kSubCount + (kMaxExponent - kSubBits) * kHalf;
    // Largest relative width of a bucket: the bound on a percentile's error.
    static constexpr double kRelativeError = 1.0 / kHalf;

    void record(uint64_t ns) {
        ++counts_[bucket_of(ns)];
        ++count_;
        sum_ += ns;
        if (ns < min_) min_ = ns;
        if (ns > max_) max_ = ns;
    }
    void merge(const LatencyHistogram &other);
    void reset() { *this = LatencyHistogram{}; }

    uint64_t count() const { return count_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
    // The value at percentile p (0 < p <= 100): the midpoint of the bucket holding the
    // ceil(p/100 * count)-th smallest sample, clamped to [min, max]. 0 when empty.
    uint64_t percentile(double p) const;

    // Bucket arithmetic, public for the tests.
    static unsigned bucket_of(uint64_t ns);
    static uint64_t bucket_low(unsigned bucket);  // smallest value in the bucket
    static uint64_t bucket_high(unsigned bucket); // largest value in the bucket

  private:
    std::array<uint64_t, kBuckets> counts_{};
    uint64_t count_ = 0;
    uint64_t sum_ = 0;
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
};

} // namespace skiff::perf
