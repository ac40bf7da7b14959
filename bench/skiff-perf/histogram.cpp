#include "histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace skiff::perf {

unsigned LatencyHistogram::bucket_of(uint64_t ns) {
    if (ns < kSubCount) return static_cast<unsigned>(ns);
    // ns has its top bit at position e >= kSubBits; the kSubBits-1 bits below it pick the bucket.
    const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(ns));
    if (e >= kMaxExponent) return kBuckets - 1;
    const unsigned sub = static_cast<unsigned>(ns >> (e - (kSubBits - 1))) - kHalf;
    return kSubCount + (e - kSubBits) * kHalf + sub;
}

uint64_t LatencyHistogram::bucket_low(unsigned bucket) {
    if (bucket < kSubCount) return bucket;
    const unsigned e = kSubBits + (bucket - kSubCount) / kHalf;
    const uint64_t sub = (bucket - kSubCount) % kHalf + kHalf;
    return sub << (e - (kSubBits - 1));
}

uint64_t LatencyHistogram::bucket_high(unsigned bucket) {
    if (bucket + 1 >= kBuckets) return UINT64_MAX;
    return bucket_low(bucket + 1) - 1;
}

void LatencyHistogram::merge(const LatencyHistogram &other) {
    for (unsigned i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

uint64_t LatencyHistogram::percentile(double p) const {
    if (count_ == 0) return 0;
    p = std::clamp(p, 0.0, 100.0);
    // The rank of the sample; the small slack keeps 99.9 % of 1000 at 999 despite rounding.
    const double exact = p / 100.0 * static_cast<double>(count_);
    const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(exact - 1e-9)));
    uint64_t seen = 0;
    for (unsigned i = 0; i < kBuckets; ++i) {
        seen += counts_[i];
        if (seen < rank) continue;
        const uint64_t low = bucket_low(i), high = bucket_high(i);
        const uint64_t mid = low + (high - low) / 2;
        return std::clamp(mid, min(), max_);
    }
    return max_;
}

} // namespace skiff::perf
