// skiff-perf's command line: what to run (fio's names and meanings for --rw, --rwmixread, --bs,
// --qd, --time, --ramp), where to run it (--queues, --cores) and whom to talk to (transport,
// address, port, NQN, digests, host NQN). parse_options() is separate from main() so the tests
// can check every rule without starting a process.
#pragma once

#include "skiff/core/status.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace skiff::perf {

enum class Pattern : uint8_t { kRead, kWrite, kRandRead, kRandWrite, kRandRw };

const char *pattern_name(Pattern p);
inline bool is_random(Pattern p) {
    return p == Pattern::kRandRead || p == Pattern::kRandWrite || p == Pattern::kRandRw;
}

struct PerfOptions {
    // Workload.
    Pattern rw = Pattern::kRandRead;
    uint32_t rwmixread = 50; // percent of reads for randrw
    uint32_t bs = 4096;      // bytes per I/O
    uint32_t qd = 32;        // commands in flight per queue
    std::chrono::milliseconds time{10000};
    std::chrono::milliseconds ramp{2000}; // run, but do not count, this long first
    uint32_t nsid = 1;
    bool verify = false;
    uint64_t seed = 1;

    // Placement.
    uint16_t queues = 1;
    std::vector<int> cores; // one thread per entry, pinned there; empty: one unpinned thread

    // Connection.
    std::string transport = "tcp";
    std::string addr = "127.0.0.1";
    uint16_t port = 4420;
    std::string nqn = "nqn.2026-11.io.skiff:default";
    std::string hostnqn;            // empty: a fresh nqn.2014-08.org.nvmexpress:uuid:... identity
    std::string dhchap_secret;      // DHHC-1 host secret: authenticate every queue (DH-HMAC-CHAP)
    std::string dhchap_ctrl_secret; // DHHC-1 controller secret: bidirectional authentication
    bool concat = false;            // secure channel concatenation: TLS keyed by the authentication
    bool header_digest = false;
    bool tls = false;     // NVMe/TCP over TLS 1.3 with the PSK in psk_file
    std::string psk_file; // NVMeTLSkey-1:01:...: (nvme gen-tls-key)
    bool data_digest = false;
    bool sq_flow_control = false; // false: Connect asks the controller to disable SQ flow control

    // Output.
    bool json = false;
    bool progress = true; // one line per second on stderr
};

// "4k", "128KiB", "1m", "512" -> bytes.
Result<uint64_t> parse_size(const std::string &text);
// "10s", "500ms", "2m", "3" (seconds) -> milliseconds.
Result<std::chrono::milliseconds> parse_duration(const std::string &text);
// "1", "0,2", "0-3", "0-1,4" -> core numbers, in order, no duplicates.
Result<std::vector<int>> parse_cores(const std::string &text);
Result<Pattern> parse_pattern(const std::string &text);

// Parses argv. On --help the result is an error with code DOCA_ERROR_AGAIN whose message is the
// help text; on bad input, an error naming the option and what it expects.
Result<PerfOptions> parse_options(int argc, const char *const *argv);

} // namespace skiff::perf
