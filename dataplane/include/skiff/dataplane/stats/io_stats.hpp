// The management method io_stats (skiff-ctl stats reads it): the target's cumulative I/O counts
// per namespace and per namespace and host, as JSON, and the same JSON read back into numbers.
// Everything here is control plane: it reads the subsystems' SubsystemIoMetrics snapshots, taken
// under their own locks; the data path is never touched.
//
//   {"time_ns": 123, "latency_bounds_ns": [1000, ..., 1000000000],
//    "namespaces": [{"subsystem": NQN, "nsid": 1, "read": OP, "write": OP, "other": OP,
//                    "errors": 0, "errors_by_status": {"0x281": 0}}],
//    "hosts": [{"subsystem": NQN, "nsid": 1, "hostnqn": NQN, ...as a namespace}]}
//   OP: {"commands": 10, "bytes": 40960, "latency_buckets": [...], "latency_sum_ns": 12345}
//
// time_ns is CLOCK_MONOTONIC on the target; latency_buckets has one count per bound and a last
// one for everything slower (not cumulative). "other" has bytes 0.
// The data path keeps counting while a snapshot is read (relaxed single-writer counters, no
// lock: nvmeof/include/skiff/nvmeof/target/namespace_io_metrics.hpp), one counter after the
// other: a snapshot taken during I/O may count in "bytes" a command that its "commands" does
// not show yet, or the other way round. Snapshots taken while no I/O completes agree exactly.
#pragma once

#include "skiff/core/status.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {
class Target;
}

namespace skiff::dataplane::stats {

// The answer of io_stats, optionally for one subsystem (nullopt: every subsystem). Without the
// accounting on, or with a subsystem that does not exist, an error saying so (and what to do).
Result<nlohmann::json> io_stats_json(const nvmeof::target::Target &target,
                                     const std::optional<std::string> &subsystem);

// What accounting off means for an operator: how to turn it on.
extern const char *const kAccountingOffMessage;

enum class Op : uint8_t { kRead, kWrite, kOther };
constexpr size_t kOps = 3;

struct OpCounts {
    uint64_t commands = 0;
    uint64_t bytes = 0;
    std::vector<uint64_t> latency_buckets; // per bucket; one more than latency_bounds_ns
    uint64_t latency_sum_ns = 0;
};

struct IoRow {
    std::string subsystem;
    uint32_t nsid = 0;
    std::string hostnqn; // empty: a namespace row (every host)
    std::array<OpCounts, kOps> ops;
    uint64_t errors = 0;
};

struct IoSample {
    uint64_t time_ns = 0;
    std::vector<uint64_t> latency_bounds_ns;
    std::vector<IoRow> namespaces;
    std::vector<IoRow> hosts;
};

// Reads an io_stats answer; the error names the member that is missing or of the wrong type.
Result<IoSample> parse_io_stats(const nlohmann::json &j);

} // namespace skiff::dataplane::stats
