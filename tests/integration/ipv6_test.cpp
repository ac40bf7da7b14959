// skiff-target on IPv6, end to end over ::1: listeners from the command line ([::1]:PORT), skiff's
// initiator connecting and doing I/O, the discovery log's IPv6 entries (ADRFAM 2, TRADDR without
// brackets, as nvme-cli reads them), skiff-perf, and what logs and skiff-ctl say about IPv6 peers
// and listeners. Every test skips on a machine without an IPv6 loopback.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <thread>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using nlohmann::json;

namespace {

const nvmf_disc_log_entry *find_entry(const DiscoveryLog &log, const std::string &nqn, uint8_t subtype) {
    for (const auto &e : log.entries)
        if (e.subtype == subtype && trim_field(e.subnqn, sizeof(e.subnqn)) == nqn) return &e;
    return nullptr;
}

} // namespace

class integration_ipv6 : public TargetTest {
  protected:
    void SetUp() override {
        if (!has_ipv6_loopback()) GTEST_SKIP() << "this machine has no IPv6 loopback (::1 cannot be bound)";
        loopback_ = "::1";
    }
    void TearDown() override {
        TargetTest::TearDown();
        if (!socket_dir_.empty()) std::filesystem::remove_all(socket_dir_);
    }

    // start_target() with a management socket, for skiff-ctl.
    void start_managed_target() {
        char tmpl[] = "/tmp/skiff-ipv6-XXXXXX";
        socket_dir_ = ::mkdtemp(tmpl);
        start_target({"--management-socket", socket_dir_ + "/ctl.sock"});
    }
    json ctl_json(const std::string &args) {
        CommandOutput r = run_ctl(socket_dir_ + "/ctl.sock", args);
        EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
        json j = json::parse(r.output, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << r.output;
        return j;
    }

    Result<DiscoveryLog> discovery_log() {
        ConnectOptions o = options();
        o.port = disc_port_;
        o.subnqn = NVME_DISC_SUBSYS_NAME;
        auto disc = connect(o);
        if (!disc) return make_error(DOCA_ERROR_CONNECTION_ABORTED, "no discovery controller");
        return disc->discovery_log();
    }

    std::string socket_dir_;
};

TEST_F(integration_ipv6, InitiatorConnectsIdentifiesAndReadsBackWhatItWrote) {
    start_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    EXPECT_EQ(trim_field(ctrl->identity().sn, sizeof(ctrl->identity().sn)), kSerial);
    Result<nvme_id_ns> ns = ctrl->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->nsze, kSizeBytes / kBlock);

    const std::vector<uint8_t> out = pattern(8 * kBlock, 6);
    std::vector<uint8_t> in(out.size());
    ASSERT_OK(ctrl->write(0, 1, 16, 8, out.data(), uint32_t(out.size())));
    ASSERT_OK(ctrl->read(0, 1, 16, 8, in.data(), uint32_t(in.size())));
    EXPECT_EQ(in, out);
    // The target's log prints the listener and the peer with the IPv6 address in brackets.
    EXPECT_NE(target_->log().find("listening: tcp [::1]:" + std::to_string(io_port_)), std::string::npos);
    EXPECT_NE(target_->log().find("connect: [::1]:"), std::string::npos) << target_->log();
}

TEST_F(integration_ipv6, DiscoveryLogSaysIpv6WithTheAddressWithoutBrackets) {
    start_target();
    Result<DiscoveryLog> log = discovery_log();
    ASSERT_OK(log);
    for (const auto &[nqn, subtype, port] :
         {std::tuple{std::string(kNqn), NVME_NQN_NVME, io_port_},
          std::tuple{std::string(NVME_DISC_SUBSYS_NAME), NVME_NQN_CURR, disc_port_}}) {
        const nvmf_disc_log_entry *e = find_entry(*log, nqn, subtype);
        ASSERT_NE(e, nullptr) << nqn;
        EXPECT_EQ(e->trtype, NVMF_TRTYPE_TCP);
        EXPECT_EQ(e->adrfam, NVMF_ADDR_FAMILY_IP6) << nqn;
        EXPECT_EQ(trim_field(e->traddr, sizeof(e->traddr)), "::1") << nqn;
        EXPECT_EQ(trim_field(e->trsvcid, sizeof(e->trsvcid)), std::to_string(port)) << nqn;
    }
}

// A referral to another target's IPv6 discovery service, added live in another spelling.
TEST_F(integration_ipv6, ReferralToAnIpv6AddressIsListedAsIpv6) {
    start_managed_target();
    ctl_json("referral add FD00:0::7 8009");
    Result<DiscoveryLog> log = discovery_log();
    ASSERT_OK(log);
    const nvmf_disc_log_entry *e = find_entry(*log, NVME_DISC_SUBSYS_NAME, NVME_NQN_DISC);
    ASSERT_NE(e, nullptr) << "no referral entry";
    EXPECT_EQ(e->adrfam, NVMF_ADDR_FAMILY_IP6);
    EXPECT_EQ(trim_field(e->traddr, sizeof(e->traddr)), "fd00::7");
    EXPECT_EQ(trim_field(e->trsvcid, sizeof(e->trsvcid)), "8009");
}

TEST_F(integration_ipv6, AnIpv6ListenerDoesNotTakeIpv4Connections) {
    start_target();
    ConnectOptions o = options();
    o.addr = "127.0.0.1";
    o.timeout = std::chrono::seconds(2);
    EXPECT_FALSE(Controller::connect(o).ok()) << "nothing listens on 127.0.0.1:" << io_port_;
}

TEST_F(integration_ipv6, SkiffPerfRunsAgainstTheIpv6AddressWithOrWithoutBrackets) {
    start_target();
    for (const std::string addr : {"::1", "[::1]"}) {
        const CommandOutput r = run_command(
            skiff::test::bin_dir() + "/skiff-perf --addr '" + addr + "' --port " + std::to_string(io_port_) +
            " --nqn " + kNqn + " --rw randrw --bs 4k --qd 4 --time 1s --ramp 0 --verify --no-progress");
        ASSERT_EQ(r.exit_code, 0) << addr << ": " << r.output;
        EXPECT_NE(r.output.find("tcp [::1]:" + std::to_string(io_port_)), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("blocks read back and checked"), std::string::npos) << r.output;
    }
}

// The lab's initiator checker (build/bin/host_check) over IPv6: discovery, identify, I/O.
TEST_F(integration_ipv6, HostCheckPassesOverIpv6) {
    start_target();
    const CommandOutput r =
        run_command(skiff::test::bin_dir() + "/host_check --addr ::1 --port " + std::to_string(io_port_) +
                    " --discovery-port " + std::to_string(disc_port_) + " --nqn " + kNqn);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(" 0 failed: PASS"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("traddr ::1 trsvcid " + std::to_string(io_port_)), std::string::npos) << r.output;
}

// skiff-ctl: the peer's address in connections, the bound listener in list, and a listener added
// live on ::1 serving I/O.
TEST_F(integration_ipv6, SkiffCtlShowsIpv6PeersAndAddsAnIpv6ListenerLive) {
    start_managed_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    json per_address = ctl_json("connections")["per_address"];
    ASSERT_EQ(per_address.size(), 1u) << per_address.dump();
    EXPECT_EQ(per_address[0]["address"], "::1");

    const uint16_t second = free_port();
    ctl_json("listener add ::1 " + std::to_string(second));
    const json listeners = ctl_json("list")["listeners"];
    bool bound = false;
    for (const json &l : listeners)
        bound |= l.value("bound", "") == "[::1]:" + std::to_string(second) && l["addr"] == "::1";
    EXPECT_TRUE(bound) << listeners.dump();
    expect_io_through(second);

    // Another spelling of the same address finds the listener.
    ctl_json("listener remove 0:0:0:0:0:0:0:1 " + std::to_string(second));
    EXPECT_EQ(ctl_json("list")["listeners"].size(), 2u) << "the I/O and the discovery listener are left";
}
