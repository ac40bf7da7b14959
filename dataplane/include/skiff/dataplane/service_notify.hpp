// Telling systemd how a Type=notify service is doing (sd_notify): READY=1 once it serves,
// STOPPING=1 on the way out, and a watchdog that pings only while every poll group of the target
// keeps making loop passes. Without systemd (NOTIFY_SOCKET unset, or skiff built without
// libsystemd) every call does nothing.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace skiff::dataplane {

class TargetService;

// Each sends one notification with a STATUS= line shown by `systemctl status`.
void notify_ready(const std::string &status);
void notify_status(const std::string &status);
void notify_stopping(const std::string &status);

// Pings the systemd watchdog (WatchdogSec= of the unit) from a thread of its own, but only while
// every poll group has made a pass since the last look: a group stuck in a command withholds the
// pings, and systemd restarts the service. Nothing runs when the watchdog is not enabled.
class PollGroupWatchdog {
  public:
    explicit PollGroupWatchdog(const TargetService &service);
    ~PollGroupWatchdog();
    PollGroupWatchdog(const PollGroupWatchdog &) = delete;
    PollGroupWatchdog &operator=(const PollGroupWatchdog &) = delete;

    // Starts the thread when systemd asked for a watchdog; returns whether it did.
    bool start();
    void stop();

  private:
    void run(uint64_t period_us);
    // Indexes of the groups whose pass count did not move since `last` (updated in place).
    std::vector<size_t> stalled_groups(std::vector<uint64_t> &last) const;

    const TargetService &service_;
    std::thread thread_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
};

} // namespace skiff::dataplane
