// The rbd backend in the real skiff-target. Without a cluster (CI): adding an rbd namespace whose
// cluster cannot be reached is refused with an error naming the pool/image and the ceph.conf,
// and the target keeps serving its other namespace. With the dev cluster
// (scripts/ceph-dev-cluster.sh start, then SKIFF_CEPH_CONF=<its ceph.conf>): skiff-perf --verify
// through the target against the image.
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

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
        return run_command(std::string(SKIFF_BIN_DIR) + "/skiff-ctl --socket " + socket_ + " " + args);
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
    const char *image = std::getenv("SKIFF_CEPH_IMAGE");
    start({{{"name", "rbd0"},
            {"kind", "rbd"},
            {"pool", "rbd"},
            {"image", image && *image ? image : "skiff-test"},
            {"size", "256MiB"},
            {"ceph_conf", conf}}},
          {{{"nsid", 1}, {"backend", "rbd0"}, {"block_size", 4096}}});
    CommandOutput r = run_command(std::string(SKIFF_BIN_DIR) + "/skiff-perf --port " + std::to_string(port_) +
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

} // namespace
} // namespace skiff::itest
