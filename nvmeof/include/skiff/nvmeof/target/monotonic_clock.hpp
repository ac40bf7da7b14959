// The clock command latencies are taken with: CLOCK_MONOTONIC through the vDSO (no system call,
// tens of nanoseconds), with the nanosecond resolution microsecond buckets need. The coarse
// clocks are cheaper still but tick every few milliseconds.
#pragma once

#include <cstdint>
#include <ctime>

namespace skiff::nvmeof::target {

inline uint64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace skiff::nvmeof::target
