// skiff-target as a service: the default management socket (skiff-ctl finds a target started
// with no socket option; a second target does not take the first one's socket), and the systemd
// notifications (READY=1, WATCHDOG=1, STOPPING=1) sent to a real NOTIFY_SOCKET datagram socket.
// Each test points RUNTIME_DIRECTORY (what systemd's RuntimeDirectory= sets) at its own folder,
// so parallel tests never share the default socket.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/config/load.hpp"
#include "skiff/config/save.hpp"
#include "skiff/dataplane/management_socket_path.hpp"

#include <nlohmann/json.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace skiff::itest {
namespace {

namespace fs = std::filesystem;

std::string bin(const std::string &name) {
    return skiff::test::bin_dir() + "/" + name;
}

class ServiceTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-service-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        ::setenv("RUNTIME_DIRECTORY", dir_.c_str(), 1); // inherited by skiff-target and skiff-ctl
    }
    void TearDown() override {
        targets_.clear();
        ::unsetenv("RUNTIME_DIRECTORY");
        ::unsetenv("NOTIFY_SOCKET");
        ::unsetenv("WATCHDOG_USEC");
        fs::remove_all(dir_);
    }
    // A target with the built-in defaults except its ports (and any extra options).
    TargetProcess &start(std::vector<std::string> extra = {}) {
        uint16_t port = free_port();
        std::vector<std::string> args{
            "--listen", "127.0.0.1:" + std::to_string(port), "--discovery", "none", "--size", "16MiB"};
        args.insert(args.end(), extra.begin(), extra.end());
        targets_.push_back(std::make_unique<TargetProcess>(args, port));
        ports_.push_back(port);
        return *targets_.back();
    }

    std::string dir_;
    std::vector<std::unique_ptr<TargetProcess>> targets_;
    std::vector<uint16_t> ports_;
};

TEST_F(ServiceTest, CtlListReachesATargetStartedWithTheDefaults) {
    auto &t = start();
    ASSERT_TRUE(t.started()) << t.log();
    EXPECT_TRUE(fs::is_socket(dir_ + "/target.sock")) << t.log();

    CommandOutput list = run_command(bin("skiff-ctl") + " list");
    ASSERT_EQ(list.exit_code, 0) << list.output << "\n" << t.log();
    EXPECT_NE(list.output.find("nqn.2026-11.io.skiff:default"), std::string::npos) << list.output;
    EXPECT_NE(list.output.find(std::to_string(ports_[0])), std::string::npos) << list.output;
}

TEST_F(ServiceTest, ASecondTargetLeavesTheDefaultSocketToTheFirst) {
    auto &first = start();
    ASSERT_TRUE(first.started()) << first.log();
    auto &second = start();
    ASSERT_TRUE(second.started()) << second.log();
    EXPECT_NE(second.log().find("belongs to another running skiff-target"), std::string::npos)
        << second.log();

    // skiff-ctl still talks to the first target: its listener, not the second's.
    CommandOutput list = run_command(bin("skiff-ctl") + " list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    EXPECT_NE(list.output.find(std::to_string(ports_[0])), std::string::npos) << list.output;
    EXPECT_EQ(list.output.find(std::to_string(ports_[1])), std::string::npos) << list.output;

    // Once the first stops, the default socket is free for the next target.
    EXPECT_EQ(first.stop(), 0);
    auto &third = start();
    ASSERT_TRUE(third.started()) << third.log();
    list = run_command(bin("skiff-ctl") + " list");
    ASSERT_EQ(list.exit_code, 0) << list.output << "\n" << third.log();
    EXPECT_NE(list.output.find(std::to_string(ports_[2])), std::string::npos) << list.output;
}

TEST_F(ServiceTest, ANamedSocketAnotherTargetHoldsIsRefused) {
    std::string socket = dir_ + "/named.sock";
    auto &first = start({"--management-socket", socket});
    ASSERT_TRUE(first.started()) << first.log();
    CommandOutput second =
        run_command(bin("skiff-target") + " --listen 127.0.0.1:" + std::to_string(free_port()) +
                    " --discovery none --size 16MiB --management-socket " + socket);
    EXPECT_EQ(second.exit_code, 1) << second.output;
    EXPECT_NE(second.output.find(socket + " belongs to another running skiff-target"), std::string::npos)
        << second.output;
    EXPECT_EQ(run_command(bin("skiff-ctl") + " --socket " + socket + " list").exit_code, 0);
}

TEST_F(ServiceTest, NoneMeansNoSocket) {
    auto &t = start({"--management-socket", "none"});
    ASSERT_TRUE(t.started()) << t.log();
    EXPECT_FALSE(fs::exists(dir_ + "/target.sock"));
    // Where the default would have been, nothing answers.
    CommandOutput at = run_command(bin("skiff-ctl") + " --socket " + dir_ + "/target.sock list");
    EXPECT_EQ(at.exit_code, 1);
    EXPECT_NE(at.output.find("cannot reach skiff-target at " + dir_ + "/target.sock"), std::string::npos)
        << at.output;
    // The default search also tries /run/skiff/target.sock and the per-user fallbacks, where
    // another target on this machine (a service, a parallel test run) may listen; it can only say
    // "no socket" when none of them exists.
    for (const std::string &p : dataplane::default_management_socket_paths())
        if (fs::exists(p))
            GTEST_SKIP() << p << " exists (another target on this machine): default search not checked";
    CommandOutput list = run_command(bin("skiff-ctl") + " list");
    EXPECT_EQ(list.exit_code, 1);
    EXPECT_NE(list.output.find("no skiff-target management socket"), std::string::npos) << list.output;
}

// /etc/skiff/target.json (packaging/etc/target.json) serves what skiff-target serves with no
// arguments: the running configuration of a target started with the defaults (ports aside) is the
// file's.
TEST_F(ServiceTest, PackagedTargetJsonIsTheBuiltInDefault) {
    uint16_t io = free_port(), disc = free_port();
    targets_.push_back(std::make_unique<TargetProcess>(
        std::vector<std::string>{"--listen", "127.0.0.1:" + std::to_string(io), "--discovery",
                                 "127.0.0.1:" + std::to_string(disc)},
        io));
    ASSERT_TRUE(targets_.back()->started()) << targets_.back()->log();
    CommandOutput list = run_command(bin("skiff-ctl") + " list");
    ASSERT_EQ(list.exit_code, 0) << list.output;
    nlohmann::json running = nlohmann::json::parse(list.output)["config"];

    config::LoadResult file =
        config::load_config_file(skiff::test::source_dir() + "/packaging/etc/target.json");
    ASSERT_TRUE(file.ok()) << file.error_text();
    file.config->listeners.at(0).port = io;
    file.config->discovery->port = disc;
    // The one difference on purpose: the service exports metrics on loopback, the command line
    // only when asked (--metrics).
    EXPECT_EQ(file.config->metrics.listen, "127.0.0.1:9860");
    file.config->metrics = {};
    EXPECT_EQ(running, config::to_json(*file.config)) << running.dump(2);
}

#ifdef SKIFF_HAVE_SYSTEMD
// The notifications systemd would get, read from a datagram socket standing in for its own.
TEST_F(ServiceTest, NotifiesReadyPingsTheWatchdogAndSaysWhenItStops) {
    std::string path = dir_ + "/notify";
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)), 0);
    timeval timeout{10, 0}; // bounds a missing message; the assertions are on what arrives
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
    ::setenv("WATCHDOG_USEC", "800000", 1); // pings every 200 ms while the poll groups run

    auto &t = start({"--cores", "2"});
    ASSERT_TRUE(t.started()) << t.log();
    auto next = [&] {
        char buf[1024];
        ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        return n > 0 ? std::string(buf, size_t(n)) : std::string();
    };
    std::string ready = next();
    EXPECT_EQ(ready.rfind("READY=1\n", 0), 0u) << ready;
    EXPECT_NE(ready.find("management socket " + dir_ + "/target.sock"), std::string::npos) << ready;
    int pings = 0;
    for (int i = 0; i < 3; ++i) pings += next() == "WATCHDOG=1";
    EXPECT_EQ(pings, 3) << t.log();

    EXPECT_EQ(t.stop(), 0);
    timeout = {1, 0}; // everything is sent by now: drain what is queued
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    std::string last, m;
    while (!(m = next()).empty()) last = m;
    EXPECT_EQ(last.rfind("STOPPING=1\n", 0), 0u) << last;
    ::close(fd);
}
#endif

} // namespace
} // namespace skiff::itest
