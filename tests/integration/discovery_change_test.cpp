// Discovery Log Page Change events on a persistent discovery controller (as `nvme discover -p`
// keeps one): the real skiff-target, changed live through skiff-ctl, and the initiator library
// holding a discovery controller with an Asynchronous Event Request parked.
#include "async_events.hpp"
#include "target_fixture.hpp"

#include <algorithm>
#include <filesystem>

namespace skiff::itest {
namespace {

namespace host = nvmeof::host;
using namespace std::chrono_literals;

// Notice (type 2), discovery log page change (F0h), log page 70h: what Linux puts in NVME_AEN.
constexpr uint32_t kDiscoveryChanged = 0x70f002;
constexpr uint32_t kAecDiscoveryChange = 1u << 31;
const std::string kNew1 = "nqn.2026-11.io.skiff:disc-new-1";
const std::string kNew2 = "nqn.2026-11.io.skiff:disc-new-2";
const std::string kWatcher = "nqn.2014-08.io.skiff:discovery-watcher"; // this test's host NQN

class DiscoveryChangeTest : public TargetTest {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-disc-change-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
        start_target({"--management-socket", socket_});
    }
    void TearDown() override {
        target_.reset();
        std::filesystem::remove_all(dir_);
    }
    // A discovery controller whose admin queue the test drives itself (no keep-alive thread).
    std::unique_ptr<host::Controller> connect_discovery() {
        host::ConnectOptions o = options(NVME_DISC_SUBSYS_NAME);
        o.port = disc_port_;
        o.kato_ms = 0;
        o.auto_keep_alive = false;
        o.host.hostnqn = kWatcher;
        return connect(o);
    }
    void ctl_ok(const std::string &args) {
        CommandOutput r = run_ctl(socket_, args);
        ASSERT_EQ(r.exit_code, 0) << "skiff-ctl " << args << ":\n" << r.output;
    }
    static bool lists(const host::DiscoveryLog &log, const std::string &nqn) {
        return std::any_of(log.entries.begin(), log.entries.end(),
                           [&](const nvmf_disc_log_entry &e) { return nqn == e.subnqn; });
    }

    std::string dir_, socket_;
};

TEST_F(DiscoveryChangeTest, IdentifyAnnouncesDiscoveryLogChangeNotices) {
    auto disc = connect_discovery();
    ASSERT_NE(disc, nullptr);
    auto id = disc->identify_controller();
    ASSERT_OK(id);
    EXPECT_EQ(id->cntrltype, NVME_CTRL_CNTRLTYPE_DISCOVERY);
    EXPECT_EQ(id->oaes & kAecDiscoveryChange, kAecDiscoveryChange) << "OAES bit 31 (DLPCN)";
    ASSERT_OK(disc->set_features(NVME_FEAT_FID_ASYNC_EVENT, kAecDiscoveryChange));
}

// A new subsystem raises the event; the next change waits until the host read the log (RAE
// clear), and a change the host already read raises nothing; a removal raises it again.
TEST_F(DiscoveryChangeTest, SubsystemChangesRaiseTheEventOncePerLogRead) {
    auto disc = connect_discovery();
    ASSERT_NE(disc, nullptr);
    auto before = disc->discovery_log();
    ASSERT_OK(before);
    ASSERT_OK(disc->set_features(NVME_FEAT_FID_ASYNC_EVENT, kAecDiscoveryChange));

    uint16_t aer = park_aer(*disc);
    ctl_ok("subsystem add " + kNew1);
    auto result = wait_aer(*disc, aer);
    ASSERT_TRUE(result) << "no discovery log change event for a new subsystem";
    EXPECT_EQ(*result, kDiscoveryChanged);

    // Unread: a second change is held back (the host has not read the log since).
    aer = park_aer(*disc);
    ctl_ok("subsystem add " + kNew2);
    EXPECT_FALSE(wait_aer(*disc, aer, 1s)) << "a second event before the host read the log";

    auto after = disc->discovery_log();
    ASSERT_OK(after);
    EXPECT_GT(after->genctr, before->genctr);
    EXPECT_FALSE(lists(*before, kNew1));
    EXPECT_TRUE(lists(*after, kNew1));
    EXPECT_TRUE(lists(*after, kNew2));
    // The log just read already had both: nothing new to announce.
    EXPECT_FALSE(wait_aer(*disc, aer, 1s)) << "an event for a change the host already read";

    ctl_ok("subsystem remove " + kNew1);
    result = wait_aer(*disc, aer);
    ASSERT_TRUE(result) << "no event for the removal";
    EXPECT_EQ(*result, kDiscoveryChanged);
    auto last = disc->discovery_log();
    ASSERT_OK(last);
    EXPECT_FALSE(lists(*last, kNew1));
}

// Listeners count too; a discovery controller that did not enable the event gets none.
TEST_F(DiscoveryChangeTest, ListenerChangesRaiseItOnlyWhereEnabled) {
    auto enabled = connect_discovery();
    auto silent = connect_discovery();
    ASSERT_NE(enabled, nullptr);
    ASSERT_NE(silent, nullptr);
    ASSERT_OK(enabled->set_features(NVME_FEAT_FID_ASYNC_EVENT, kAecDiscoveryChange));
    uint16_t aer_enabled = park_aer(*enabled), aer_silent = park_aer(*silent);

    const uint16_t port = free_port();
    ctl_ok("listener add 127.0.0.1 " + std::to_string(port));
    auto result = wait_aer(*enabled, aer_enabled);
    ASSERT_TRUE(result) << "no event for a new listener";
    EXPECT_EQ(*result, kDiscoveryChanged);
    EXPECT_FALSE(wait_aer(*silent, aer_silent, 1s)) << "an event the controller did not enable";
    auto log = enabled->discovery_log();
    ASSERT_OK(log);
    EXPECT_TRUE(std::any_of(log->entries.begin(), log->entries.end(), [&](const nvmf_disc_log_entry &e) {
        return std::string(e.trsvcid) == std::to_string(port) && std::string(e.subnqn) == kNqn;
    }));
}

// A host list decides which hosts the log lists a subsystem to: allowing this host raises it.
TEST_F(DiscoveryChangeTest, AllowingTheHostOnASubsystemRaisesIt) {
    auto disc = connect_discovery();
    ASSERT_NE(disc, nullptr);
    ASSERT_OK(disc->set_features(NVME_FEAT_FID_ASYNC_EVENT, kAecDiscoveryChange));
    ctl_ok("subsystem add " + kNew1 + " --allow-host nqn.2014-08.io.skiff:another-host");
    auto log = disc->discovery_log(); // read after the add: nothing pending for it
    ASSERT_OK(log);
    EXPECT_FALSE(lists(*log, kNew1)) << "listed to a host the subsystem does not allow";

    uint16_t aer = park_aer(*disc);
    ctl_ok("host add " + kNew1 + " " + kWatcher);
    auto result = wait_aer(*disc, aer);
    ASSERT_TRUE(result) << "no event when the host was allowed";
    EXPECT_EQ(*result, kDiscoveryChanged);
    log = disc->discovery_log();
    ASSERT_OK(log);
    EXPECT_TRUE(lists(*log, kNew1));
}

} // namespace
} // namespace skiff::itest
