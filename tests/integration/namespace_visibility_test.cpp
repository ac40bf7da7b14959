// Per-host namespace visibility on the real skiff-target: a configuration gives namespaces host
// lists, two hosts with their own NQNs see different namespace sets, and skiff-ctl changes the
// lists live (namespace host add / remove, namespace visibility): the host whose view changed gets
// the namespace-attribute-changed event naming the namespace, and its I/O follows at once.
#include "async_events.hpp"
#include "config_target.hpp"
#include "target_fixture.hpp"

#include <nlohmann/json.hpp>

namespace skiff::itest {
namespace {

using nlohmann::json;
namespace host = nvmeof::host;

const std::string kSub = "nqn.2026-11.io.skiff:masked";
const std::string kHostA = "nqn.2026-11.io.skiff:masked-host-a";
const std::string kHostB = "nqn.2026-11.io.skiff:masked-host-b";

class NamespaceVisibilityTest : public ConfigTargetTest {
  protected:
    // Namespace 1 for every host, 2 for host B only, 3 for no host.
    void SetUp() override {
        prepare("masked");
        json doc = {{"target", {{"management_socket", socket_}}},
                    {"backends",
                     {{{"name", "r1"}, {"kind", "ram"}, {"size", "8MiB"}},
                      {{"name", "r2"}, {"kind", "ram"}, {"size", "8MiB"}},
                      {{"name", "r3"}, {"kind", "ram"}, {"size", "8MiB"}}}},
                    {"subsystems",
                     {{{"nqn", kSub},
                       {"namespaces",
                        {{{"nsid", 1}, {"backend", "r1"}},
                         {{"nsid", 2}, {"backend", "r2"}, {"visible_hosts", {kHostB}}},
                         {{"nsid", 3}, {"backend", "r3"}, {"visible_hosts", json::array()}}}}}}},
                    {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                    {"discovery", nullptr}};
        start_target(doc);
    }

    // A host whose admin queue the test drives (no automatic keep-alive), namespace notices on.
    std::unique_ptr<host::Controller> connect(const std::string &hostnqn) {
        host::ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.host.hostnqn = hostnqn;
        o.kato_ms = 0;
        o.auto_keep_alive = false;
        auto c = host::Controller::connect(o);
        if (!c) {
            ADD_FAILURE() << hostnqn << ": " << c.error().describe();
            return nullptr;
        }
        EXPECT_TRUE((*c)->set_features(NVME_FEAT_FID_ASYNC_EVENT, 1u << 8).ok());
        return std::move(*c);
    }
    static std::vector<uint32_t> active(host::Controller &c) {
        auto list = c.active_namespaces();
        EXPECT_TRUE(list.ok());
        return list.ok() ? *list : std::vector<uint32_t>{};
    }
    // A read of block 0 of nsid: ok, or the NVMe error's text.
    static std::string read(host::Controller &c, uint32_t nsid) {
        std::vector<uint8_t> buf(512);
        Status st = c.read(0, nsid, 0, 1, buf.data(), 512);
        return st ? "ok" : st.error().message;
    }
    void ctl_ok(const std::string &args) {
        CommandOutput r = ctl(args);
        ASSERT_EQ(r.exit_code, 0) << "skiff-ctl " << args << ": " << r.output;
    }
};

constexpr const char *kInvalidNs = "Invalid Namespace or Format";

TEST_F(NamespaceVisibilityTest, TwoHostsSeeTheirOwnNamespaceSets) {
    auto a = connect(kHostA), b = connect(kHostB);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(active(*a), (std::vector<uint32_t>{1}));
    EXPECT_EQ(active(*b), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(read(*b, 2), "ok");
    EXPECT_NE(read(*a, 2).find(kInvalidNs), std::string::npos) << read(*a, 2);
    EXPECT_NE(read(*b, 3).find(kInvalidNs), std::string::npos) << "namespace 3 is visible to no host";
    auto id = a->identify_namespace(2);
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(id->nsze, 0u) << "hidden reads as inactive";
}

TEST_F(NamespaceVisibilityTest, SkiffCtlChangesTheListsLiveAndTheHostIsTold) {
    auto a = connect(kHostA), b = connect(kHostB);
    ASSERT_TRUE(a && b);
    uint16_t aer_a = park_aer(*a);

    ctl_ok("namespace host add " + kSub + " 2 " + kHostA);
    auto ev = wait_aer(*a, aer_a);
    ASSERT_TRUE(ev) << "no namespace-attribute-changed event for host A";
    EXPECT_EQ(*ev, uint32_t(NVME_AER_NOTICE | (NVME_LOG_LID_CHANGED_NS << 16)));
    EXPECT_EQ(changed_list(*a), std::vector<uint32_t>{2});
    EXPECT_EQ(active(*a), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(read(*a, 2), "ok");

    // Host B's view did not change: its parked event stays parked through A's change.
    uint16_t aer_b = park_aer(*b);
    EXPECT_FALSE(wait_aer(*b, aer_b, std::chrono::milliseconds(300)));
    ctl_ok("namespace host remove " + kSub + " 2 " + kHostB);
    ASSERT_TRUE(wait_aer(*b, aer_b));
    EXPECT_EQ(changed_list(*b), std::vector<uint32_t>{2});
    EXPECT_NE(read(*b, 2).find(kInvalidNs), std::string::npos);

    // Namespace 3: from no host to every host.
    aer_a = park_aer(*a);
    ctl_ok("namespace visibility " + kSub + " 3 --all-hosts");
    ASSERT_TRUE(wait_aer(*a, aer_a));
    EXPECT_EQ(read(*a, 3), "ok");
    EXPECT_EQ(read(*b, 3), "ok");

    // The running configuration says so, and saves it.
    CommandOutput list = ctl("list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    json doc = json::parse(list.output);
    const json &ns = doc["config"]["subsystems"][0]["namespaces"];
    EXPECT_FALSE(ns[0].contains("visible_hosts"));
    EXPECT_EQ(ns[1]["visible_hosts"], json({kHostA}));
    EXPECT_FALSE(ns[2].contains("visible_hosts"));
}

TEST_F(NamespaceVisibilityTest, RefusalsSayWhy) {
    CommandOutput all = ctl("namespace host add " + kSub + " 1 " + kHostA);
    EXPECT_NE(all.exit_code, 0);
    EXPECT_NE(all.output.find("is visible to every host"), std::string::npos) << all.output;
    CommandOutput twice = ctl("namespace host add " + kSub + " 2 " + kHostB);
    EXPECT_NE(twice.exit_code, 0);
    EXPECT_NE(twice.output.find("already sees namespace 2"), std::string::npos) << twice.output;
    CommandOutput absent = ctl("namespace host remove " + kSub + " 2 " + kHostA);
    EXPECT_NE(absent.exit_code, 0);
    EXPECT_NE(absent.output.find("is not a host that sees"), std::string::npos) << absent.output;
    CommandOutput bad = ctl("namespace host add " + kSub + " 2 not-an-nqn");
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.output.find("visible_hosts[1]"), std::string::npos) << bad.output;
    CommandOutput none = ctl("namespace host add " + kSub + " 9 " + kHostA);
    EXPECT_NE(none.exit_code, 0);
    EXPECT_NE(none.output.find("no namespace 9"), std::string::npos) << none.output;
}

TEST_F(NamespaceVisibilityTest, ANamespaceAddedForOneHostIsHiddenFromTheOthersFromTheStart) {
    auto a = connect(kHostA), b = connect(kHostB);
    ASSERT_TRUE(a && b);
    uint16_t aer_a = park_aer(*a), aer_b = park_aer(*b);
    ctl_ok("namespace add " + kSub + " --nsid 1024 --kind ram --size 8MiB --visible-host " + kHostB);
    ASSERT_TRUE(wait_aer(*b, aer_b));
    EXPECT_EQ(changed_list(*b), std::vector<uint32_t>{1024});
    EXPECT_EQ(read(*b, 1024), "ok");
    EXPECT_FALSE(wait_aer(*a, aer_a, std::chrono::milliseconds(300))) << "host A sees no change";
    EXPECT_NE(read(*a, 1024).find(kInvalidNs), std::string::npos);
}

} // namespace
} // namespace skiff::itest
