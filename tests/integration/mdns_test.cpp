// skiff-target's mDNS announcement (--mdns, the file's mdns.announce) where no avahi-daemon runs,
// as on the CI machines: the target starts and serves all the same, and its log says that the
// announcement waits for the daemon. --mdns without a discovery listener is refused with the fix
// named. The announcement itself, seen by a browser through a real avahi-daemon, is the lab test
// tests/lab/mdns.sh.
#include "target_fixture.hpp"

#include <chrono>
#include <thread>

namespace skiff::itest {
namespace {

using namespace std::chrono_literals;

class MdnsTest : public TargetTest {};

// Avahi's client reports the missing daemon from its own thread, a moment after the start.
bool log_says(TargetProcess &t, const std::string &text) {
    for (int i = 0; i < 100; ++i) {
        if (t.log().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(50ms);
    }
    return false;
}

TEST_F(MdnsTest, WithoutAvahiDaemonTheTargetServesAndSaysTheAnnouncementWaits) {
    io_port_ = free_port();
    disc_port_ = free_port();
    launch_target({"--mdns"});
    // A build without Avahi's client library refuses --mdns. It says so after its listeners
    // opened (under qemu-user the port can be seen before the refusal), so look for the line
    // whether or not the target seemed to start.
    auto skip_without_avahi = [&] {
        if (target_->log().find("without Avahi's client library") == std::string::npos) return false;
        target_.reset();
        return true;
    };
    if (!target_->started() && skip_without_avahi())
        GTEST_SKIP() << "this build has no Avahi client library (libavahi-client-dev)";
    ASSERT_TRUE(target_->started()) << target_->log();
    // Either no daemon (CI) or, on a machine that runs one, the announcement made.
    const bool waits = log_says(*target_, "mDNS: avahi-daemon is not running");
    const bool announced = !waits && log_says(*target_, "mDNS: announcing \"skiff-target on ");
    if (!waits && !announced && skip_without_avahi())
        GTEST_SKIP() << "this build has no Avahi client library (libavahi-client-dev)";
    EXPECT_TRUE(waits || announced) << target_->log();
    expect_io_through(io_port_);
}

TEST(MdnsOption, WithoutADiscoveryListenerItIsRefusedWithTheFix) {
    CommandOutput r = run_command(target_binary() + " --listen 127.0.0.1:" + std::to_string(free_port()) +
                                  " --discovery none --mdns");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("--mdns announces the discovery listener, and there is none: give --discovery "
                            "ADDR:PORT as well"),
              std::string::npos)
        << r.output;
}

} // namespace
} // namespace skiff::itest
