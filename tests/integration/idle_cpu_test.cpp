// Adaptive polling: a target with a connected but silent host sleeps in epoll after
// --idle-poll-us, so over a second it uses a small fraction of a core (a busy-polling loop would
// use all of it). This checks behaviour (sleeping vs. spinning), not speed.
#include "target_fixture.hpp"

#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace skiff;
using namespace skiff::itest;
using namespace std::chrono_literals;

namespace {

// utime + stime of a process in seconds, from /proc/<pid>/stat (fields 14 and 15).
double cpu_seconds(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    // The command name (field 2) may hold spaces: fields are counted after its closing ')'.
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
        if (i == 14) utime = std::stoull(field);
        if (i == 15) stime = std::stoull(field);
    }
    return double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
}

} // namespace

using integration_idle_cpu = TargetTest;

TEST_F(integration_idle_cpu, IdleTargetWithAConnectionSleeps) {
    start_target({"--idle-poll-us", "1000"});
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    std::vector<uint8_t> buf(4096);
    ASSERT_OK(ctrl->read(0, 1, 0, 8, buf.data(), buf.size())); // the group has seen work
    std::this_thread::sleep_for(200ms);                        // past the busy-poll window
    const double before = cpu_seconds(target_->pid());
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(1s);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double used = cpu_seconds(target_->pid()) - before;
    // Busy polling would use ~wall seconds; sleeping uses a few timer ticks.
    EXPECT_LT(used, 0.2 * wall) << "skiff-target used " << used << " s of CPU in " << wall << " s while idle";
    ASSERT_OK(ctrl->read(0, 1, 0, 8, buf.data(), buf.size())); // and it wakes up for the next command
}

TEST_F(integration_idle_cpu, BadIdlePollValueIsRefused) {
    io_port_ = free_port();
    TargetProcess p(
        {"--listen", "127.0.0.1:" + std::to_string(io_port_), "--discovery", "none", "--idle-poll-us", "-5"},
        io_port_);
    EXPECT_FALSE(p.started());
    EXPECT_NE(p.log().find("--idle-poll-us -5: use 0..10000000"), std::string::npos) << p.log();
}
