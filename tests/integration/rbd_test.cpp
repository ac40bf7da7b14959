// The rbd backend in the real skiff-target. Without a cluster (CI): adding an rbd namespace whose
// cluster cannot be reached is refused with an error naming the pool/image and the ceph.conf,
// and the target keeps serving its other namespace. With the dev cluster
// (scripts/ceph-dev-cluster.sh start, then SKIFF_CEPH_CONF=<its ceph.conf>): skiff-perf --verify
// through the target against the image.
#include "../support/build_paths.hpp"
#include "../dataplane/rbd_scratch_image.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kSub = "nqn.2026-11.io.skiff:rbd";

class RbdTarget : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-rbd-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
    }
    void TearDown() override {
        target_.reset();
        scratch_.reset(); // after the target closed it
        fs::remove_all(dir_);
    }
    void start(const json &backends, const json &namespaces) {
        json cfg = {{"target", {{"cores", 2}, {"management_socket", socket_}}},
                    {"backends", backends},
                    {"subsystems", {{{"nqn", kSub}, {"namespaces", namespaces}}}},
                    {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                    {"discovery", nullptr}};
        std::ofstream(dir_ + "/target.json") << cfg.dump(2);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", dir_ + "/target.json"},
                                                  port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }
    CommandOutput ctl(const std::string &args) {
        return run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " " + args);
    }
    std::unique_ptr<nvmeof::host::Controller> connect() {
        nvmeof::host::ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.timeout = 10s;
        auto c = nvmeof::host::Controller::connect(o);
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
        return c.ok() ? std::move(c.value()) : nullptr;
    }

    std::string dir_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
    std::unique_ptr<test::ScratchImage> scratch_;
};

TEST_F(RbdTarget, AnUnreachableClusterIsRefusedByNameAndTheOtherNamespaceKeepsServing) {
    start({{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}, {{{"nsid", 1}, {"backend", "ram1"}}});
    auto host = connect();
    ASSERT_NE(host, nullptr);
    // A monitor address nothing listens on: a port bound but never listened on.
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
    socklen_t len = sizeof(a);
    ASSERT_EQ(::getsockname(s, reinterpret_cast<sockaddr *>(&a), &len), 0);
    const std::string conf = dir_ + "/ceph.conf";
    std::ofstream(conf) << "[global]\nmon_host = 127.0.0.1:" << ntohs(a.sin_port)
                        << "\nauth_client_required = none\nlog_file = " << dir_ << "/client.log\n";
    json params = {{"nqn", kSub},
                   {"namespace", {{"nsid", 2}}},
                   {"backend",
                    {{"name", "vol7"},
                     {"kind", "rbd"},
                     {"pool", "tank"},
                     {"image", "vol7"},
                     {"ceph_conf", conf},
                     {"connect_timeout_s", 1}}}};
    CommandOutput r = ctl("call namespace.add '" + params.dump() + "'");
    ::close(s);
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tank/vol7"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(conf), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cannot connect to the cluster"), std::string::npos) << r.output;

    // The config path of a bad ceph.conf key is named as a JSON path.
    r = ctl("namespace add " + kSub +
            " --nsid 3 --kind rbd --pool tank --image vol7 --ceph-conf relative.conf");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ceph_conf: expected an absolute path"), std::string::npos) << r.output;

    // Namespace 1 still serves, and nothing of the refused one is left.
    std::vector<uint8_t> out(4096, 0x5A), in(4096);
    ASSERT_TRUE(host->write(0, 1, 8, 8, out.data(), 4096).ok());
    ASSERT_TRUE(host->read(0, 1, 8, 8, in.data(), 4096).ok());
    EXPECT_EQ(in, out);
    EXPECT_EQ(*host->active_namespaces(), std::vector<uint32_t>{1});
}

TEST_F(RbdTarget, SkiffPerfVerifiesThroughTheTargetOnTheDevCluster) {
    const char *conf = std::getenv("SKIFF_CEPH_CONF");
    if (!conf || !*conf)
        GTEST_SKIP() << "no dev cluster (scripts/ceph-dev-cluster.sh start; SKIFF_CEPH_CONF)";
    // An image of its own: --verify reads blocks it did not write as "zero or stamped", and other
    // tests leave their own bytes on the shared one.
    scratch_ = std::make_unique<test::ScratchImage>(conf, "rbd", "skiff-verify-" + std::to_string(getpid()),
                                                    256 << 20);
    ASSERT_TRUE(scratch_->ok()) << "cannot create a scratch image in the dev cluster";
    start({{{"name", "rbd0"},
            {"kind", "rbd"},
            {"pool", "rbd"},
            {"image", scratch_->name()},
            {"ceph_conf", conf}}},
          {{{"nsid", 1}, {"backend", "rbd0"}, {"block_size", 4096}}});
    CommandOutput r = run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(port_) +
                                  " --nqn " + kSub +
                                  " --no-progress --rw randrw --rwmixread 50 --bs 4k --qd 16 --queues 2 "
                                  "--time 2s --ramp 0 --verify --json");
    ASSERT_EQ(r.exit_code, 0) << r.output << "\ntarget:\n" << target_->log();
    const size_t at = r.output.rfind("\n{");
    json j = json::parse(r.output.substr(at == std::string::npos ? 0 : at + 1), nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.output;
    EXPECT_GT(j["writes"].get<uint64_t>(), 0u) << r.output;
    EXPECT_GT(j["verified_blocks"].get<uint64_t>(), 0u) << r.output;
}

// The cluster's only monitor stopped under a writer: writes fail with ANA Inaccessible (never
// hang past the op timeout), and succeed again once the monitor is back; everything
// acknowledged reads back. Stops and starts the dev cluster's monitor, so it runs only when
// SKIFF_CEPH_MON_TEST=1 too. Prints the times it measured.
TEST_F(RbdTarget, TheMonitorStoppedMidIoGivesAnaInaccessibleAndIoResumes) {
    const char *conf = std::getenv("SKIFF_CEPH_CONF");
    const char *enabled = std::getenv("SKIFF_CEPH_MON_TEST");
    if (!conf || !*conf || !enabled || std::string(enabled) != "1")
        GTEST_SKIP() << "needs the dev cluster and SKIFF_CEPH_MON_TEST=1 (it stops the cluster's monitor)";
    const std::string cluster_dir = fs::path(conf).parent_path().string();
    const std::string script = skiff::test::source_dir() + "/scripts/ceph-dev-cluster.sh";
    start({{{"name", "rbd0"},
            {"kind", "rbd"},
            {"pool", "rbd"},
            {"image", "skiff-test"},
            {"size", "64MiB"},
            {"ceph_conf", conf},
            {"op_timeout_s", 5}}},
          {{{"nsid", 1}, {"backend", "rbd0"}, {"block_size", 4096}}});
    auto host = connect();
    ASSERT_NE(host, nullptr);
    using Clock = std::chrono::steady_clock;
    std::vector<uint8_t> buf(4096);
    std::vector<uint32_t> written; // the stamp of each block, 0 = never acknowledged
    written.assign(1024, 0);
    uint32_t stamp = 0;
    // One write of a stamped block; returns "" on success, else the error.
    auto write_one = [&](uint32_t block, double &took_s) {
        ++stamp;
        std::fill(buf.begin(), buf.end(), 0);
        std::memcpy(buf.data(), &stamp, 4);
        std::memcpy(buf.data() + 4, &block, 4);
        auto t0 = Clock::now();
        Status st = host->write(0, 1, block, 1, buf.data(), 4096);
        took_s = std::chrono::duration<double>(Clock::now() - t0).count();
        written[block] = st.ok() ? stamp : 0; // a failed write may or may not have landed
        return st.ok() ? std::string() : st.error().describe();
    };
    double took = 0, longest = 0;
    for (uint32_t b = 0; b < 64; ++b) ASSERT_EQ(write_one(b, took), "");

    ASSERT_EQ(run_command(script + " stop-mon --dir " + cluster_dir).exit_code, 0);
    auto stopped = Clock::now();
    double first_error_s = -1;
    std::string first_error;
    for (uint32_t i = 0; Clock::now() - stopped < 40s; ++i) {
        std::string err = write_one(64 + i % 512, took);
        longest = std::max(longest, took);
        if (!err.empty()) {
            first_error = err;
            first_error_s = std::chrono::duration<double>(Clock::now() - stopped).count();
            break;
        }
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_FALSE(first_error.empty()) << "writes never failed in 40 s without a monitor";
    EXPECT_NE(first_error.find("Asymmetric Access Inaccessible"), std::string::npos) << first_error;
    // While it is down every write fails quickly (the device says inaccessible up front).
    for (int i = 0; i < 5; ++i) {
        std::string err = write_one(600 + i, took);
        EXPECT_NE(err.find("Asymmetric Access Inaccessible"), std::string::npos) << err;
        EXPECT_LT(took, 1.0);
    }

    ASSERT_EQ(run_command(script + " start-mon --dir " + cluster_dir).exit_code, 0);
    auto restarted = Clock::now();
    double resumed_s = -1;
    while (Clock::now() - restarted < 60s) {
        if (write_one(700, took).empty()) {
            resumed_s = std::chrono::duration<double>(Clock::now() - restarted).count();
            break;
        }
        longest = std::max(longest, took);
        std::this_thread::sleep_for(200ms);
    }
    ASSERT_GE(resumed_s, 0) << "writes did not resume within 60 s of the monitor's return";
    for (uint32_t b = 0; b < written.size(); ++b) {
        if (!written[b]) continue;
        ASSERT_TRUE(host->read(0, 1, b, 1, buf.data(), 4096).ok());
        uint32_t got = 0;
        std::memcpy(&got, buf.data(), 4);
        ASSERT_EQ(got, written[b]) << "block " << b;
    }
    // Leave the shared image as skiff-perf --verify (bench, ceph-monitor-loss.sh) expects it.
    EXPECT_TRUE(host->write_zeroes(0, 1, 0, static_cast<uint32_t>(written.size())).ok());
    std::printf("monitor stopped: first error after %.1f s (%s); longest write %.2f s; writes resumed "
                "%.1f s after the monitor's return\n",
                first_error_s, first_error.c_str(), longest, resumed_s);
}

} // namespace
} // namespace skiff::itest
