// bench/skiff-perf against the real skiff-target: a one-second mixed run with --verify passes
// and reports what it did; a corrupted block makes it fail and say where; a refused connect is
// reported, not hidden.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sys/wait.h>

using namespace skiff;
using namespace skiff::itest;

namespace {

struct PerfRun {
    int exit_code = -1;
    std::string out; // stdout and stderr
};

PerfRun run_perf(const std::string &args) {
    CommandOutput r = run_command(skiff::test::bin_dir() + "/skiff-perf " + args);
    return {r.exit_code, r.output};
}

// The JSON object skiff-perf --json printed (the last line that starts with '{').
nlohmann::json last_json(const std::string &out) {
    const size_t at = out.rfind("\n{");
    const std::string line = out.substr(at == std::string::npos ? 0 : at + 1);
    return nlohmann::json::parse(line, nullptr, false);
}

} // namespace

class integration_skiff_perf : public TargetTest {
  protected:
    std::string target_args() const {
        return "--port " + std::to_string(io_port_) + " --nqn " + kNqn + " --no-progress ";
    }
};

TEST_F(integration_skiff_perf, OneSecondMixedRunWithVerify) {
    start_target();
    const PerfRun r =
        run_perf(target_args() + "--rw randrw --rwmixread 50 --bs 4k --qd 8 --queues 2 --time 1s "
                                 "--ramp 0 --verify --json");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const nlohmann::json j = last_json(r.out);
    ASSERT_TRUE(j.is_object()) << r.out;
    EXPECT_EQ(j["rw"], "randrw");
    EXPECT_EQ(j["bs"], 4096);
    EXPECT_EQ(j["queues"], 2);
    EXPECT_GT(j["reads"].get<uint64_t>(), 0u) << r.out;
    EXPECT_GT(j["writes"].get<uint64_t>(), 0u) << r.out;
    EXPECT_GT(j["verified_blocks"].get<uint64_t>(), 0u) << r.out;
    EXPECT_EQ(j["ios"].get<uint64_t>(), j["reads"].get<uint64_t>() + j["writes"].get<uint64_t>());
    const auto &lat = j["latency_us"];
    EXPECT_LE(lat["min"].get<double>(), lat["p50"].get<double>());
    EXPECT_LE(lat["p50"].get<double>(), lat["p99"].get<double>());
    EXPECT_LE(lat["p99"].get<double>(), lat["p99.9"].get<double>());
    EXPECT_LE(lat["p99.9"].get<double>(), lat["max"].get<double>());
}

TEST_F(integration_skiff_perf, SequentialWriteThenVerifiedReadBack) {
    start_target();
    PerfRun w = run_perf(target_args() + "--rw write --bs 128k --qd 4 --time 1s --ramp 0 --verify --seed 5");
    ASSERT_EQ(w.exit_code, 0) << w.out;
    EXPECT_NE(w.out.find("write bs=131072 qd=4"), std::string::npos) << w.out;
    // A new run cannot know the generations, but every block must be zero or a valid stamp.
    PerfRun r = run_perf(target_args() + "--rw read --bs 128k --qd 4 --time 1s --ramp 0 --verify --seed 6");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("blocks read back and checked"), std::string::npos) << r.out;
}

TEST_F(integration_skiff_perf, CorruptedBlockFailsVerify) {
    start_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    std::vector<uint8_t> junk = pattern(4096, 77);
    ASSERT_OK(ctrl->write(0, 1, 0, 4096 / kBlock, junk.data(), 4096));
    // Sequential reads start at LBA 0 of queue 1's slice.
    const PerfRun r = run_perf(target_args() + "--rw read --bs 4k --qd 1 --time 1s --ramp 0 --verify");
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("verify: LBA 0: no stamp"), std::string::npos) << r.out;
}

TEST_F(integration_skiff_perf, RefusedConnectIsReported) {
    start_target();
    const PerfRun r = run_perf("--port " + std::to_string(io_port_) +
                               " --nqn nqn.2026-11.io.skiff:nobody --time 1s --ramp 0 --no-progress");
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("skiff-perf: connect:"), std::string::npos) << r.out;
}

TEST_F(integration_skiff_perf, BadOptionIsReported) {
    const PerfRun r = run_perf("--rw sideways");
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("--rw \"sideways\": expected read, write, randread, randwrite or randrw"),
              std::string::npos)
        << r.out;
}
