// The systemd watchdog follows the poll groups: pings while they loop, none once they stop.
// The pings go to a real datagram socket standing in for systemd's NOTIFY_SOCKET.
#include "../nvmeof/target_fixture.hpp"

#include "skiff/dataplane/service_notify.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace skiff::test {
namespace {

class NotifySocket {
  public:
    NotifySocket() {
        char tmpl[] = "/tmp/skiff-notify-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::string path = dir_ + "/notify";
        std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
        bound_ = ::bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0;
        ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
        ::setenv("WATCHDOG_USEC", "800000", 1); // a look every 200 ms
    }
    ~NotifySocket() {
        ::unsetenv("NOTIFY_SOCKET");
        ::unsetenv("WATCHDOG_USEC");
        ::close(fd_);
        std::filesystem::remove_all(dir_);
    }
    bool bound() const { return bound_; }
    // The next message, or "" when none came within `seconds`.
    std::string next(int seconds) {
        timeval timeout{seconds, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
        char buf[256];
        ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
        return n > 0 ? std::string(buf, size_t(n)) : std::string();
    }

  private:
    std::string dir_;
    int fd_ = -1;
    bool bound_ = false;
};

TEST(PollGroupWatchdog, PingsWhileEveryPollGroupLoopsAndStopsWhenTheyStop) {
#ifndef SKIFF_HAVE_SYSTEMD
    GTEST_SKIP() << "built without libsystemd: no sd_notify";
#endif
    NotifySocket systemd;
    ASSERT_TRUE(systemd.bound());
    LiveTarget t(16ull << 20, 512, 2);
    dataplane::PollGroupWatchdog watchdog(*t.service);
    ASSERT_TRUE(watchdog.start());
    for (int i = 0; i < 3; ++i) EXPECT_EQ(systemd.next(10), "WATCHDOG=1");

    // Stopped groups make no passes: at most the ping of a look that saw the last passes, then none.
    t.service->stop();
    int late = 0;
    while (late < 10 && systemd.next(1) == "WATCHDOG=1") ++late; // 10: it never stopped
    EXPECT_LE(late, 1);
    watchdog.stop();
}

TEST(PollGroupWatchdog, DoesNothingWithoutAWatchdog) {
    ::unsetenv("WATCHDOG_USEC");
    LiveTarget t(16ull << 20, 512, 1);
    dataplane::PollGroupWatchdog watchdog(*t.service);
    EXPECT_FALSE(watchdog.start());
}

} // namespace
} // namespace skiff::test
