// QoS against the real skiff-target, driven by skiff-perf at queue depth 32 over loopback: a
// namespace limited in the configuration is held to its limit and none of its I/O fails (over
// the limit it waits); the namespace next to it is never throttled; skiff-ctl qos set changes
// and clears the limit live; a bytes-per-second limit and a host's own limit work the same way.
// Rates are asserted only as upper bounds (limit x time + burst + slack): a slow machine only
// goes slower. Whether I/O waited is read from the target's own counts (skiff-ctl qos show).
#include "../support/build_paths.hpp"
#include "config_target.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

namespace skiff::itest {
namespace {

using nlohmann::json;

const std::string kSub = "nqn.2026-11.io.skiff:qos";
const std::string kHostA = "nqn.2026-11.io.skiff:qos-host-a";
const std::string kHostB = "nqn.2026-11.io.skiff:qos-host-b";

struct PerfRun {
    bool ok = false;
    std::string output;
    uint64_t ios = 0, bytes = 0;
    double seconds = 0;
};

class QosTest : public ConfigTargetTest {
  protected:
    // Two RAM namespaces; namespace 1 with `qos` (none when empty); I/O accounting on, so
    // qos show counts what waited.
    void start(const json &qos) {
        prepare("qos");
        json ns1 = {{"nsid", 1}, {"backend", "ram1"}};
        if (!qos.empty()) ns1["qos"] = qos;
        json doc = {
            {"target", {{"cores", 2}, {"management_socket", socket_}}},
            {"backends",
             {{{"name", "ram1"}, {"kind", "ram"}, {"size", "64MiB"}},
              {{"name", "ram2"}, {"kind", "ram"}, {"size", "64MiB"}}}},
            {"subsystems", {{{"nqn", kSub}, {"namespaces", {ns1, {{"nsid", 2}, {"backend", "ram2"}}}}}}},
            {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
            {"discovery", nullptr},
            {"metrics", {{"accounting", true}}}};
        start_target(doc);
    }

    void qos_set(const std::string &args) {
        CommandOutput r = ctl("qos set " + kSub + " " + args);
        ASSERT_EQ(r.exit_code, 0) << "qos set " << args << ": " << r.output;
    }

    // What waited for QoS on namespace nsid so far (qos show --json).
    uint64_t throttled_ios(uint32_t nsid) {
        CommandOutput r = ctl("qos show --json --subsystem " + kSub);
        EXPECT_EQ(r.exit_code, 0) << r.output;
        json j = json::parse(r.output, nullptr, false);
        if (j.is_object())
            for (auto &ns : j["namespaces"])
                if (ns["nsid"] == nsid) return ns["throttled_ios"].get<uint64_t>();
        ADD_FAILURE() << "no namespace " << nsid << " in qos show: " << r.output;
        return 0;
    }

    // skiff-perf at QD32 on one queue for `time`; its measured window.
    PerfRun perf(uint32_t nsid, const std::string &rw, const std::string &time,
                 const std::string &host = kHostA) {
        CommandOutput r =
            run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(port_) + " --nqn " +
                        kSub + " --hostnqn " + host + " --nsid " + std::to_string(nsid) + " --rw " + rw +
                        " --bs 4k --qd 32 --ramp 0 --time " + time + " --no-progress --json");
        PerfRun run;
        run.output = r.output;
        const size_t at = r.output.rfind("\n{");
        json j = json::parse(r.output.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
        run.ok = r.exit_code == 0 && j.is_object();
        if (!run.ok) return run;
        run.ios = j["ios"].get<uint64_t>();
        run.seconds = j["seconds"].get<double>();
        run.bytes = run.ios * 4096;
        return run;
    }

    // The most a limit of `rate` per second lets through in `seconds`: the rate, the saved burst
    // (20 ms), a chunk per poll group, and 10 % slack.
    static double bound(double rate, double seconds) { return rate * seconds * 1.10 + rate * 0.02 + 64; }
};

TEST_F(QosTest, ALimitedNamespaceIsHeldToItsLimitWithoutErrorsAndItsNeighbourIsNot) {
    start({{"rw_ios_per_sec", 500}});
    PerfRun limited = perf(1, "randread", "2s");
    ASSERT_TRUE(limited.ok) << "I/O over the limit must wait, not fail:\n" << limited.output;
    EXPECT_LE(double(limited.ios), bound(500, limited.seconds)) << limited.output;
    EXPECT_GT(throttled_ios(1), 0u) << "at QD32 a 500 IOPS limit queues I/O";

    PerfRun free = perf(2, "randrw", "1s");
    ASSERT_TRUE(free.ok) << free.output;
    EXPECT_GT(free.ios, 0u);
    EXPECT_EQ(throttled_ios(2), 0u) << "namespace 2 has no limit";
}

TEST_F(QosTest, SkiffCtlRaisesAndClearsTheLimitLive) {
    start({});
    qos_set("1 --rw-iops 300");
    PerfRun slow = perf(1, "randwrite", "2s");
    ASSERT_TRUE(slow.ok) << slow.output;
    EXPECT_LE(double(slow.ios), bound(300, slow.seconds)) << slow.output;
    const uint64_t waited = throttled_ios(1);
    EXPECT_GT(waited, 0u);

    qos_set("1 --rw-iops 1000");
    PerfRun faster = perf(1, "randrw", "2s");
    ASSERT_TRUE(faster.ok) << faster.output;
    EXPECT_LE(double(faster.ios), bound(1000, faster.seconds)) << faster.output;

    qos_set("1 --clear");
    const uint64_t before = throttled_ios(1);
    PerfRun unlimited = perf(1, "randread", "1s");
    ASSERT_TRUE(unlimited.ok) << unlimited.output;
    EXPECT_EQ(throttled_ios(1), before) << "no limit: nothing waits";
}

TEST_F(QosTest, ClearingTheLimitReleasesQueuedIo) {
    start({{"rw_ios_per_sec", 50}});
    // At 50 IOPS most of QD32's commands wait; the limit is cleared while they do. The run's
    // commands all complete, and from then on no command waits (the target's own count of
    // throttled commands stops): a check that does not depend on how fast this machine is.
    CommandOutput cleared{-1, ""};
    std::thread clearer([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        cleared = ctl("qos set " + kSub + " 1 --clear");
    });
    PerfRun run = perf(1, "randread", "2s");
    clearer.join();
    ASSERT_EQ(cleared.exit_code, 0) << cleared.output;
    ASSERT_TRUE(run.ok) << run.output;
    const uint64_t waited = throttled_ios(1);
    EXPECT_GT(waited, 0u) << "at QD32 a 50 IOPS limit queues I/O";
    PerfRun after = perf(1, "randread", "1s");
    ASSERT_TRUE(after.ok) << after.output;
    EXPECT_EQ(throttled_ios(1), waited) << "the cleared limit still held I/O back";
}

TEST_F(QosTest, ABytesPerSecondLimitHoldsTheBandwidth) {
    start({{"read_bytes_per_sec", "2MiB"}});
    PerfRun run = perf(1, "randread", "2s");
    ASSERT_TRUE(run.ok) << run.output;
    EXPECT_LE(double(run.bytes), bound(2 << 20, run.seconds)) << run.output;
    EXPECT_GT(throttled_ios(1), 0u);
    // The limit is on reads: writes do not wait.
    const uint64_t before = throttled_ios(1);
    PerfRun writes = perf(1, "randwrite", "1s");
    ASSERT_TRUE(writes.ok) << writes.output;
    EXPECT_EQ(throttled_ios(1), before);
}

TEST_F(QosTest, AHostLimitAppliesToThatHostOnly) {
    start({{"hosts", {{{"nqn", kHostA}, {"rw_ios_per_sec", 300}}}}});
    PerfRun a = perf(1, "randread", "2s", kHostA);
    ASSERT_TRUE(a.ok) << a.output;
    EXPECT_LE(double(a.ios), bound(300, a.seconds)) << a.output;
    const uint64_t after_a = throttled_ios(1);
    EXPECT_GT(after_a, 0u);
    PerfRun b = perf(1, "randread", "1s", kHostB);
    ASSERT_TRUE(b.ok) << b.output;
    EXPECT_EQ(throttled_ios(1), after_a) << "host B has no limit";
}

} // namespace
} // namespace skiff::itest
