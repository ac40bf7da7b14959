// skiff-ctl stats against the real skiff-target (--io-accounting, no metrics endpoint) while
// skiff-perf drives I/O over loopback: the samples are consistent in themselves (bytes per
// command, rates over the interval), the per-host rows name the host NQN skiff-perf connected
// with and add up to the namespace's, and the cumulative counters (io_stats) equal skiff-perf's own
// counts over the whole run. With the accounting off, stats fails and says how to turn it on.
// Rates are only sanity-checked: nothing here asserts on a time.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr const char *kHost = "nqn.2026-11.io.skiff:stats-test-host";

class IoStatsTest : public TargetTest {
  protected:
    void TearDown() override {
        TargetTest::TearDown();
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }

    void start_managed(std::vector<std::string> extra) {
        char tmpl[] = "/tmp/skiff-stats-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
        extra.push_back("--management-socket");
        extra.push_back(socket_);
        start_target(extra);
    }

    CommandOutput ctl(const std::string &args) { return run_ctl(socket_, args); }

    json ctl_json(const std::string &args) {
        CommandOutput r = ctl(args);
        EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
        json j = json::parse(r.output, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << r.output;
        return j;
    }

    // Whether a controller of kHost is connected (skiff-ctl controllers).
    bool host_connected() {
        CommandOutput r = ctl("controllers");
        json j = json::parse(r.output, nullptr, false);
        if (!j.is_array()) return false;
        for (auto &c : j)
            if (c.value("host", "") == kHost && c["queues"].size() > 1) return true;
        return false;
    }

    std::string dir_, socket_;
};

// The row of `rows` for kNqn nsid 1 (and `host`, when given); null when there is none.
json find_row(const json &rows, const std::string &host = "") {
    for (auto &r : rows)
        if (r.value("subsystem", "") == kNqn && r.value("nsid", 0) == 1 &&
            (host.empty() || r.value("hostnqn", "") == host))
            return r;
    return nullptr;
}

TEST_F(IoStatsTest, StatsDuringASkiffPerfRunAgreeWithItsCounts) {
    start_managed({"--io-accounting"});
    CommandOutput perf_out{-1, ""};
    std::thread perf([&] {
        perf_out = run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(io_port_) +
                               " --nqn " + kNqn + " --hostnqn " + kHost +
                               " --no-progress --ramp 0 --json --rw randrw --rwmixread 50 --bs 4k --qd 4"
                               " --queues 2 --time 4s");
    });
    // Sample while skiff-perf runs: once its I/O queues are connected.
    for (int i = 0; i < 200 && !host_connected(); ++i) std::this_thread::sleep_for(50ms);
    CommandOutput stats = ctl("stats --json --count 2 --interval 1 --hosts");
    perf.join();
    ASSERT_EQ(stats.exit_code, 0) << stats.output;
    ASSERT_EQ(perf_out.exit_code, 0) << perf_out.output;
    const size_t at = perf_out.output.rfind("\n{");
    const json p = json::parse(perf_out.output.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
    ASSERT_TRUE(p.is_object()) << perf_out.output;
    const uint64_t reads = p["all_reads"].get<uint64_t>(), writes = p["all_writes"].get<uint64_t>();
    ASSERT_GT(reads, 0u);
    ASSERT_GT(writes, 0u);

    // Two samples, one JSON object per line.
    std::istringstream lines(stats.output);
    std::vector<json> samples;
    for (std::string line; std::getline(lines, line);) {
        json j = json::parse(line, nullptr, false);
        ASSERT_TRUE(j.is_object()) << "not a JSON line: " << line << "\n" << stats.output;
        samples.push_back(j);
    }
    ASSERT_EQ(samples.size(), 2u) << stats.output;
    uint64_t sampled = 0, sampled_reads = 0, sampled_writes = 0;
    for (const json &s : samples) {
        const double interval = s["interval_s"].get<double>();
        EXPECT_GT(interval, 0.0) << s;
        const json ns = find_row(s["namespaces"]);
        ASSERT_TRUE(ns.is_object()) << "no row for " << kNqn << " nsid 1: " << s;
        const json host = find_row(s["hosts"], kHost);
        ASSERT_TRUE(host.is_object()) << "no row for host " << kHost << ": " << s;
        for (auto &h : s["hosts"]) EXPECT_EQ(h["hostnqn"], kHost) << "a host skiff-perf is not: " << s;
        for (const char *op : {"read", "write"}) {
            const json &o = ns[op];
            const uint64_t n = o["commands"].get<uint64_t>();
            // Every command of skiff-perf moved 4 KiB and succeeded. The target reads a snapshot's
            // counters one after the other while I/O runs (io_stats.hpp), so within a sample the
            // bytes may count a few commands more or fewer than "commands" (seen: 3 of 7370
            // under qemu-user); the totals after the run, below, agree exactly.
            const uint64_t bytes = o["bytes"].get<uint64_t>();
            EXPECT_EQ(bytes % 4096, 0u) << op << ": " << s;
            const double by_bytes = double(bytes / 4096), slack = std::max(8.0, double(n) / 100);
            EXPECT_NEAR(by_bytes, double(n), slack) << op << ": " << s;
            EXPECT_NEAR(o["iops"].get<double>(), double(n) / interval, 1e-6 * (1 + double(n))) << op;
            EXPECT_NEAR(o["mb_per_s"].get<double>(), double(bytes) / interval / 1e6, 1e-6) << op;
            // The only host did everything the namespace saw.
            EXPECT_EQ(host[op]["commands"], o["commands"]) << op << ": " << s;
            EXPECT_EQ(host[op]["bytes"], o["bytes"]) << op << ": " << s;
            if (n) {
                EXPECT_GT(o["avg_us"].get<double>(), 0.0) << op;
                EXPECT_LE(o["p50_us"].get<double>(), o["p99_us"].get<double>()) << op;
            } else {
                EXPECT_TRUE(o["p50_us"].is_null()) << op;
            }
            sampled += n;
            (std::string(op) == "read" ? sampled_reads : sampled_writes) += n;
        }
        EXPECT_EQ(ns["errors"], 0) << s;
    }
    EXPECT_GT(sampled, 0u) << "no I/O seen while skiff-perf ran:\n" << stats.output;
    EXPECT_LE(sampled_reads, reads);
    EXPECT_LE(sampled_writes, writes);

    // Over the whole run: the cumulative counters equal skiff-perf's counts, for the namespace and
    // for its host (skiff-perf has disconnected: its queues are retired, their counts are not).
    const json total = ctl_json("call io_stats");
    for (const json &row : {find_row(total["namespaces"]), find_row(total["hosts"], kHost)}) {
        ASSERT_TRUE(row.is_object()) << total;
        EXPECT_EQ(row["read"]["commands"].get<uint64_t>(), reads) << row;
        EXPECT_EQ(row["write"]["commands"].get<uint64_t>(), writes) << row;
        EXPECT_EQ(row["read"]["bytes"].get<uint64_t>(), reads * 4096) << row;
        EXPECT_EQ(row["write"]["bytes"].get<uint64_t>(), writes * 4096) << row;
        uint64_t timed = 0;
        for (auto &b : row["read"]["latency_buckets"]) timed += b.get<uint64_t>();
        EXPECT_EQ(timed, reads) << "every read is in the latency histogram";
    }
    EXPECT_EQ(total["hosts"].size(), 1u) << total;

    // The table form names the same host under the namespace.
    CommandOutput table = ctl("stats --count 1 --interval 0.2 --hosts");
    EXPECT_EQ(table.exit_code, 0) << table.output;
    EXPECT_NE(table.output.find(std::string(kNqn) + " ns 1"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find(std::string("host ") + kHost), std::string::npos) << table.output;
}

TEST_F(IoStatsTest, WithoutAccountingStatsFailsAndSaysHowToTurnItOn) {
    start_managed({});
    CommandOutput r = ctl("stats --json --count 1 --interval 1");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("I/O accounting is off"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--io-accounting"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("\"interval_s\""), std::string::npos) << "no sample may be printed: " << r.output;
}

TEST_F(IoStatsTest, TheMetricsEndpointImpliesAccountingAndAnUnknownSubsystemIsNamed) {
    start_managed({"--metrics", "127.0.0.1:" + std::to_string(free_port())});
    expect_io_through(io_port_);
    const json total = ctl_json("call io_stats");
    const json ns = find_row(total["namespaces"]);
    ASSERT_TRUE(ns.is_object()) << total;
    EXPECT_EQ(ns["read"]["commands"], 1) << total;
    CommandOutput r = ctl("stats --subsystem nqn.2026-11.io.skiff:nobody --count 1");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("no subsystem named \"nqn.2026-11.io.skiff:nobody\""), std::string::npos)
        << r.output;
}

} // namespace
} // namespace skiff::itest
