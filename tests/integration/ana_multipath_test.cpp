// ANA multipath through real skiff-target processes and skiff's own initiator: two listeners of
// one target are two paths whose states come from the configuration and change live with
// skiff-ctl ana set (the change state first, the ANA change event, log page 0Ch, the path status
// of I/O); two targets on one aio file are a gateway group (same namespace identity, disjoint
// controller ids, each target's own ANA state); discovery referrals listed and edited live.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace host = nvmeof::host;
namespace wire = nvmeof::wire;

const std::string kSub = "nqn.2026-11.io.skiff:gateway";

CommandOutput ctl(const std::string &socket, const std::string &args) {
    return run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket + " " + args);
}

// The state of group `group` in log page 0Ch as `c` reads it (0 when the group is not listed).
uint8_t ana_state(host::Controller &c, uint32_t group = 1, uint64_t *chgcnt = nullptr) {
    std::vector<uint8_t> page(4096);
    EXPECT_TRUE(c.get_log_page(NVME_LOG_LID_ANA, 0, page.data(), uint32_t(page.size())).ok());
    nvme_ana_log hdr;
    std::memcpy(&hdr, page.data(), sizeof(hdr));
    if (chgcnt) *chgcnt = hdr.chgcnt;
    size_t at = sizeof(hdr);
    for (uint16_t i = 0; i < hdr.ngrps; ++i) {
        nvme_ana_group_desc d;
        std::memcpy(&d, page.data() + at, sizeof(d));
        if (d.grpid == group) return d.state;
        at += sizeof(d) + 4 * d.nnsids;
    }
    return 0;
}

// Polls (bounded) until `c` reports `state` for group 1.
bool wait_state(host::Controller &c, uint8_t state) {
    for (int i = 0; i < 100; ++i) {
        if (ana_state(c) == state) return true;
        std::this_thread::sleep_for(50ms);
    }
    return false;
}

host::Completion read_block(host::Controller &c, void *buf) {
    auto r = c.io_queue(0).execute(wire::Sqe(host::cmd::read(1, 0, 1)), host::DataDir::kControllerToHost, buf,
                                   kBlock);
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? *r : host::Completion{};
}

class AnaMultipath : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-ana-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
    }
    void TearDown() override {
        targets_.clear();
        fs::remove_all(dir_);
    }
    // Starts a target from `doc` (its first listener's port tells when it is up).
    void start(const json &doc, const std::string &name) {
        std::string path = dir_ + "/" + name + ".json";
        std::ofstream(path) << doc.dump(2);
        auto t = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", path},
                                                 doc["listeners"][0]["port"].get<uint16_t>());
        ASSERT_TRUE(t->started()) << t->log();
        targets_.push_back(std::move(t));
    }
    std::unique_ptr<host::Controller> connect(uint16_t port, const host::HostIdentity &id) {
        host::ConnectOptions o;
        o.port = port;
        o.subnqn = kSub;
        o.host = id;
        o.kato_ms = 0;
        o.auto_keep_alive = false;
        auto c = host::Controller::connect(o);
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().describe());
        return c.ok() ? std::move(c.value()) : nullptr;
    }

    std::string dir_;
    std::vector<std::unique_ptr<TargetProcess>> targets_;
};

TEST_F(AnaMultipath, AnaSetMovesOnePathThroughChangeToInaccessibleAndBack) {
    std::string socket = dir_ + "/ctl.sock";
    uint16_t p1 = free_port(), p2 = free_port();
    json doc = {
        {"target", {{"management_socket", socket}}},
        {"backends", {{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}},
        {"subsystems", {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "ram1"}}}}}}},
        {"listeners",
         {{{"addr", "127.0.0.1"}, {"port", p1}},
          {{"addr", "127.0.0.1"}, {"port", p2}, {"ana", {{{"group", 1}, {"state", "non-optimized"}}}}}}},
        {"discovery", nullptr}};
    start(doc, "target");
    host::HostIdentity id = host::HostIdentity::generate();
    auto a = connect(p1, id), b = connect(p2, id);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    // One subsystem, one namespace, two controllers: the identity a multipath host matches.
    EXPECT_NE(a->cntlid(), b->cntlid());
    auto na = a->identify_namespace(1), nb = b->identify_namespace(1);
    ASSERT_OK(na);
    ASSERT_OK(nb);
    EXPECT_EQ(std::memcmp(na->nguid, nb->nguid, 16), 0);
    EXPECT_EQ(na->anagrpid, 1u);
    EXPECT_EQ(ana_state(*a), NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(ana_state(*b), NVME_ANA_STATE_NONOPTIMIZED);

    ASSERT_OK(a->set_features(NVME_FEAT_FID_ASYNC_EVENT, 1u << 11));
    wire::Sqe aer{};
    aer.opcode = nvme_admin_async_event;
    auto cid = a->admin_queue().submit(aer, host::DataDir::kNone, nullptr, 0);
    ASSERT_OK(cid);

    CommandOutput set =
        ctl(socket, "ana set 127.0.0.1 " + std::to_string(p1) + " inaccessible --transition-ms 1500");
    ASSERT_EQ(set.exit_code, 0) << set.output;
    EXPECT_NE(set.output.find("change, then inaccessible in 1500 ms"), std::string::npos) << set.output;
    std::optional<uint32_t> event;
    for (int i = 0; i < 100 && !event; ++i) {
        host::Completion done;
        while (a->admin_queue().pop_completion(done))
            if (done.cid == *cid) event = uint32_t(done.cqe.result);
        if (!event) (void)a->admin_queue().poll(100ms);
    }
    ASSERT_TRUE(event) << "no ANA change event";
    EXPECT_EQ(*event, uint32_t(NVME_AER_NOTICE | (NVME_AER_NOTICE_ANA << 8) | (NVME_LOG_LID_ANA << 16)));

    // In the change state I/O is refused as "transition"; then the path is inaccessible.
    std::vector<uint8_t> buf(kBlock);
    uint64_t count = 0;
    if (ana_state(*a, 1, &count) == NVME_ANA_STATE_CHANGE) {
        host::Completion c = read_block(*a, buf.data());
        EXPECT_EQ(c.sct(), NVME_SCT_PATH);
        EXPECT_EQ(c.sc(), NVME_SC_ANA_TRANSITION);
    }
    ASSERT_TRUE(wait_state(*a, NVME_ANA_STATE_INACCESSIBLE)) << "the transition never ended";
    ana_state(*a, 1, &count);
    EXPECT_EQ(count, 2u) << "change, then inaccessible";
    host::Completion refused = read_block(*a, buf.data());
    EXPECT_EQ(refused.sct(), NVME_SCT_PATH);
    EXPECT_EQ(refused.sc(), NVME_SC_ANA_INACCESSIBLE);
    EXPECT_FALSE(wire::Status::dnr(refused.status())) << "the host must be free to retry elsewhere";
    EXPECT_TRUE(read_block(*b, buf.data()).nvme_ok()) << "the other path still serves";
    EXPECT_EQ(ana_state(*b), NVME_ANA_STATE_NONOPTIMIZED);

    // skiff-ctl list shows the live state and the configuration; save keeps it.
    json list = json::parse(ctl(socket, "list").output);
    EXPECT_EQ(list["listeners"][0]["ana"][0]["state"], "inaccessible") << list.dump(2);
    EXPECT_EQ(list["config"]["listeners"][0]["ana"][0]["state"], "inaccessible");
    ASSERT_EQ(ctl(socket, "save " + dir_ + "/saved.json").exit_code, 0);
    json saved = json::parse(std::ifstream(dir_ + "/saved.json"));
    EXPECT_EQ(saved["listeners"][0]["ana"], json::parse(R"([{"group": 1, "state": "inaccessible"}])"));

    // Fail back: optimized again, and the exception disappears from the configuration.
    ASSERT_EQ(ctl(socket, "ana set 127.0.0.1 " + std::to_string(p1) + " optimized").exit_code, 0);
    EXPECT_EQ(ana_state(*a), NVME_ANA_STATE_OPTIMIZED);
    EXPECT_TRUE(read_block(*a, buf.data()).nvme_ok());
    list = json::parse(ctl(socket, "list").output);
    EXPECT_FALSE(list["config"]["listeners"][0].contains("ana")) << list.dump(2);

    // Bad requests name what is wrong and change nothing.
    CommandOutput r = ctl(socket, "ana set 127.0.0.1 9 inaccessible");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("params: no tcp listener on 127.0.0.1:9"), std::string::npos) << r.output;
    r = ctl(socket, "ana set 127.0.0.1 " + std::to_string(p1) + " inaccessible --transition-ms 20000");
    EXPECT_NE(r.output.find("params.transition_ms: expected at most 9000"), std::string::npos) << r.output;
    r = ctl(socket, "ana set 127.0.0.1 " + std::to_string(p1) + " inaccessible --group 0");
    EXPECT_NE(r.output.find("listeners[0].ana[0].group: expected an integer 1..128, got 0"),
              std::string::npos)
        << r.output;
    r = ctl(socket, "ana set 127.0.0.1 " + std::to_string(p1) + " inaccessible --nqn nqn.2026-11.io.skiff:x");
    EXPECT_NE(r.output.find("params.nqn: no subsystem named"), std::string::npos) << r.output;
    EXPECT_EQ(ana_state(*a), NVME_ANA_STATE_OPTIMIZED);
}

// Two skiff-target processes in front of one aio file: one namespace identity, controller ids
// that cannot collide, and each target's own ANA state of the group.
TEST_F(AnaMultipath, TwoTargetsOnOneFileAreOneNamespaceWithDisjointControllerIds) {
    std::string file = dir_ + "/shared.img";
    {
        std::ofstream f(file);
        f.close();
        fs::resize_file(file, 8 << 20);
    }
    uint16_t p1 = free_port(), p2 = free_port();
    auto gateway = [&](uint16_t port, int lo, int hi, const char *state) {
        return json{{"target", {{"management_socket", "none"}}},
                    {"backends", {{{"name", "disk"}, {"kind", "aio"}, {"path", file}}}},
                    {"subsystems",
                     {{{"nqn", kSub},
                       {"cntlid_min", lo},
                       {"cntlid_max", hi},
                       {"namespaces",
                        {{{"nsid", 1},
                          {"backend", "disk"},
                          {"nguid", "5a1f0e7c-2b3d-4e5f-8a9b-0c1d2e3f4a5b"},
                          {"eui64", "0123456789abcdef"}}}}}}},
                    {"listeners",
                     {{{"addr", "127.0.0.1"}, {"port", port}, {"ana", {{{"group", 1}, {"state", state}}}}}}},
                    {"discovery", nullptr}};
    };
    start(gateway(p1, 1, 99, "optimized"), "gw1");
    start(gateway(p2, 100, 199, "non-optimized"), "gw2");
    host::HostIdentity id = host::HostIdentity::generate();
    auto a = connect(p1, id), b = connect(p2, id);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_GE(a->cntlid(), 1);
    EXPECT_LE(a->cntlid(), 99);
    EXPECT_GE(b->cntlid(), 100);
    EXPECT_LE(b->cntlid(), 199);
    auto na = a->identify_namespace(1), nb = b->identify_namespace(1);
    ASSERT_OK(na);
    ASSERT_OK(nb);
    EXPECT_EQ(std::memcmp(na->nguid, nb->nguid, 16), 0);
    const uint8_t eui[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    EXPECT_EQ(std::memcmp(na->eui64, eui, 8), 0);
    EXPECT_EQ(std::memcmp(nb->eui64, eui, 8), 0);
    EXPECT_EQ(ana_state(*a), NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(ana_state(*b), NVME_ANA_STATE_NONOPTIMIZED);
    // What one gateway writes (write-through), the other reads from the same file.
    std::vector<uint8_t> out(4096, 0xC3), in(4096);
    ASSERT_OK(a->write(0, 1, 16, 8, out.data(), 4096));
    ASSERT_OK(a->flush(0, 1));
    ASSERT_OK(b->read(0, 1, 16, 8, in.data(), 4096));
    EXPECT_EQ(in, out);
}

TEST_F(AnaMultipath, DiscoveryReferralsAreConfiguredAndEditedLive) {
    std::string socket = dir_ + "/ctl.sock";
    uint16_t io = free_port(), disc = free_port();
    json doc = {{"target", {{"management_socket", socket}}},
                {"backends", {{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                {"subsystems", {{{"nqn", kSub}, {"namespaces", {{{"nsid", 1}, {"backend", "ram1"}}}}}}},
                {"listeners", {{{"addr", "127.0.0.1"}, {"port", io}}}},
                {"discovery", {{"addr", "127.0.0.1"}, {"port", disc}}},
                {"referrals", {{{"addr", "192.0.2.8"}, {"port", 8009}}}}};
    start(doc, "target");
    auto referrals = [&] {
        host::ConnectOptions o;
        o.port = disc;
        o.kato_ms = 0;
        o.auto_keep_alive = false;
        auto c = host::Controller::connect(o);
        EXPECT_TRUE(c.ok());
        std::vector<std::string> out;
        if (!c.ok()) return out;
        auto log = (*c)->discovery_log();
        EXPECT_TRUE(log.ok());
        if (!log.ok()) return out;
        for (auto &e : log->entries)
            if (e.subtype == NVME_NQN_DISC)
                out.push_back(host::trim_field(e.traddr, sizeof(e.traddr)) + ":" +
                              host::trim_field(e.trsvcid, sizeof(e.trsvcid)));
        return out;
    };
    EXPECT_EQ(referrals(), std::vector<std::string>{"192.0.2.8:8009"});
    CommandOutput r = ctl(socket, "referral add 192.0.2.9 4420");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(referrals(), (std::vector<std::string>{"192.0.2.8:8009", "192.0.2.9:4420"}));
    r = ctl(socket, "referral add 192.0.2.9 4420");
    EXPECT_NE(r.output.find("is already a referral"), std::string::npos) << r.output;
    r = ctl(socket, "referral add gateway2");
    EXPECT_NE(r.output.find("referrals[2].addr: expected an IPv4 or IPv6 address such as \"127.0.0.1\" or "
                            "\"::1\" (no brackets, no port), got \"gateway2\""),
              std::string::npos)
        << r.output;
    ASSERT_EQ(ctl(socket, "referral remove 192.0.2.8").exit_code, 0);
    EXPECT_EQ(referrals(), std::vector<std::string>{"192.0.2.9:4420"});
    json list = json::parse(ctl(socket, "list").output);
    EXPECT_EQ(list["config"]["referrals"],
              json::parse(R"([{"trtype": "tcp", "addr": "192.0.2.9", "port": 4420}])"));
}

} // namespace
} // namespace skiff::itest
