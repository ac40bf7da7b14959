// What QoS limits a namespace (or one host on it): I/O commands and bytes per second, for reads,
// writes, or both together ("rw"). 0 is "no limit". The six limits are independent: a read must
// fit every one that applies to it (rw and read, in I/Os and in bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::target {

// Which I/O a limit counts. kRw counts reads and writes together.
enum class QosDir : uint8_t { kRw = 0, kRead = 1, kWrite = 2 };
constexpr size_t kQosDirs = 3;
// A QoS budget is six token buckets: I/Os then bytes, each by QosDir.
constexpr size_t kQosBuckets = 2 * kQosDirs;
constexpr size_t qos_ios_bucket(QosDir d) {
    return static_cast<size_t>(d);
}
constexpr size_t qos_bytes_bucket(QosDir d) {
    return kQosDirs + static_cast<size_t>(d);
}

struct QosLimits {
    std::array<uint64_t, kQosDirs> ios_per_sec{};   // by QosDir; 0: none
    std::array<uint64_t, kQosDirs> bytes_per_sec{}; // by QosDir; 0: none

    // The rate of bucket i (qos_ios_bucket / qos_bytes_bucket).
    uint64_t bucket_rate(size_t i) const {
        return i < kQosDirs ? ios_per_sec[i] : bytes_per_sec[i - kQosDirs];
    }
    bool any() const {
        for (size_t i = 0; i < kQosBuckets; ++i)
            if (bucket_rate(i)) return true;
        return false;
    }
    bool operator==(const QosLimits &) const = default;
};

} // namespace skiff::nvmeof::target
