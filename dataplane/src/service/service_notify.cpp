#include "skiff/dataplane/service_notify.hpp"

#include "skiff/core/log.hpp"
#include "skiff/dataplane/target_service.hpp"

#ifdef SKIFF_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include <algorithm>
#include <chrono>

namespace skiff::dataplane {

namespace {

void notify(const std::string &state) {
#ifdef SKIFF_HAVE_SYSTEMD
    // unset_environment 0: child processes could still notify, but skiff starts none.
    sd_notify(0, state.c_str());
#else
    (void)state;
#endif
}

// The watchdog interval systemd asked for (microseconds), 0 when none.
uint64_t watchdog_usec() {
#ifdef SKIFF_HAVE_SYSTEMD
    uint64_t usec = 0;
    if (sd_watchdog_enabled(0, &usec) > 0) return usec;
#endif
    return 0;
}

} // namespace

void notify_ready(const std::string &status) {
    notify("READY=1\nSTATUS=" + status);
}
void notify_status(const std::string &status) {
    notify("STATUS=" + status);
}
void notify_stopping(const std::string &status) {
    notify("STOPPING=1\nSTATUS=" + status);
}

PollGroupWatchdog::PollGroupWatchdog(const TargetService &service) : service_(service) {}

PollGroupWatchdog::~PollGroupWatchdog() {
    stop();
}

bool PollGroupWatchdog::start() {
    uint64_t usec = watchdog_usec();
    if (usec == 0) return false;
    // Look four times per interval: a ping is then never later than half the interval after the
    // groups have all moved, well within what systemd waits.
    // Not below 200 ms: an idle group passes only every 100 ms (its epoll timeout).
    uint64_t period = std::max<uint64_t>(usec / 4, 200000);
    thread_ = std::thread([this, period] { run(period); });
    log::get("target")->info("systemd watchdog: {} ms, pinged while every poll group makes passes",
                             usec / 1000);
    return true;
}

void PollGroupWatchdog::stop() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

std::vector<size_t> PollGroupWatchdog::stalled_groups(std::vector<uint64_t> &last) const {
    std::vector<size_t> stalled;
    last.resize(service_.group_count(), 0);
    for (size_t i = 0; i < service_.group_count(); ++i) {
        uint64_t passes = service_.group(i).passes();
        // An idle group still passes every 100 ms (its epoll timeout), so no movement means stuck.
        if (passes == last[i]) stalled.push_back(i);
        last[i] = passes;
    }
    return stalled;
}

void PollGroupWatchdog::run(uint64_t period_us) {
    auto logger = log::get("target");
    std::vector<uint64_t> last;
    bool warned = false;
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::microseconds(period_us), [this] { return stop_; })) {
        auto stalled = stalled_groups(last);
        if (stalled.empty()) {
            notify("WATCHDOG=1");
            if (warned) logger->info("systemd watchdog: every poll group makes passes again");
            warned = false;
        } else if (!warned) {
            logger->warn("systemd watchdog: poll group {} made no pass in {} ms; pings withheld",
                         stalled.front(), period_us / 1000);
            warned = true;
        }
    }
}

} // namespace skiff::dataplane
