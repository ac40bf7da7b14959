#include "skiff/dataplane/poll_group.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace skiff::dataplane {
namespace {

constexpr int kMaxEvents = 64;
constexpr uint64_t kTimerPeriodMs = 100; // keep-alive checks and async events
constexpr int kSleepTimeoutMs = 100;

uint64_t now_us() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

// epoll user data: the wake eventfd and the progress engine are told apart from connections by
// these sentinels.
char kWakeTag, kPeTag;
constexpr int kPeBudget = 64; // progress calls per iteration
// Direct polling (busy, few connections that allow it): one recv per connection per pass is
// cheaper than epoll_wait plus the recv; epoll still runs every kEpollEveryPasses passes.
constexpr size_t kDirectPollMaxConnections = 4;
constexpr uint64_t kEpollEveryPasses = 16;

// How long an idle pass may sleep: until the next timer tick, or earlier when throttled I/O
// (QoS) is due at wake_ns. Rounded up: waking a little late is made good by the token bucket's
// saved burst; waking early would only spin.
int sleep_timeout_ms(uint64_t now_us, uint64_t wake_ns) {
    if (wake_ns == UINT64_MAX) return kSleepTimeoutMs;
    const uint64_t now_ns = now_us * 1000u;
    if (wake_ns <= now_ns) return 0;
    const uint64_t ms = (wake_ns - now_ns + 999'999u) / 1'000'000u;
    return static_cast<int>(std::min<uint64_t>(ms, kSleepTimeoutMs));
}

} // namespace

PollGroup::PollGroup(int index, PollGroupOptions options) : index_(index), options_(options) {}

PollGroup::~PollGroup() {
    stop();
    close_channels(); // normally done by run(); channels call back into unwatch_fd
    nvmeof::transport::Connection *msg;
    while (inbox_.pop(msg)) delete msg;
    if (pe_) doca_pe_destroy(pe_);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status PollGroup::start() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (epoll_fd_ < 0 || wake_fd_ < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          std::string("poll group epoll/eventfd: ") + std::strerror(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = &kWakeTag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    if (auto st = check(doca_pe_create(&pe_), "poll group doca_pe_create"); !st) return st;
    if (auto st = check(doca_pe_get_notification_handle(pe_, &pe_handle_), "doca_pe_get_notification_handle");
        !st)
        return st;
    ev.data.ptr = &kPeTag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, pe_handle_, &ev);
    thread_ = std::thread([this] { run(); });
    return Status::success();
}

void PollGroup::stop() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
    thread_.join();
    if (pe_) {
        doca_pe_destroy(pe_);
        pe_ = nullptr;
    }
}

void PollGroup::add_connection(std::unique_ptr<nvmeof::transport::Connection> conn) {
    auto *msg = conn.release();
    while (!inbox_.push(msg)) std::this_thread::yield();
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
}

bool PollGroup::take_new_connections() {
    uint64_t count;
    [[maybe_unused]] ssize_t r = read(wake_fd_, &count, sizeof(count));
    bool any = false;
    nvmeof::transport::Connection *msg;
    while (inbox_.pop(msg)) {
        auto entry = std::make_unique<Entry>();
        entry->conn.reset(msg);
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.ptr = entry.get();
        if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, msg->fd(), &ev) != 0) {
            skiff::log::get("dataplane")
                ->error("group {}: cannot watch {}: {}", index_, msg->peer(), std::strerror(errno));
            continue;
        }
        skiff::log::get("dataplane")->debug("group {}: new connection from {}", index_, msg->peer());
        // From here on it runs on this group: its backend I/O uses this group's channels.
        entry->conn->attach(*this);
        // Give the connection the clock before its first command (keep-alive starts at Connect).
        entry->conn->poll(now_us() / 1000);
        entries_.push_back(std::move(entry));
        any = true;
    }
    connection_count_.store(entries_.size(), std::memory_order_relaxed);
    update_direct_polling();
    return any;
}

void PollGroup::service(Entry &e, uint32_t events) {
    if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) e.conn->on_readable();
    if ((events & EPOLLOUT) && !e.conn->finished()) e.conn->on_writable();
    update_interest(e);
}

void PollGroup::update_interest(Entry &e) {
    bool want = !e.conn->finished() && e.conn->wants_write();
    if (want == e.watching_write) return;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (want ? uint32_t(EPOLLOUT) : 0u);
    ev.data.ptr = &e;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, e.conn->fd(), &ev);
    e.watching_write = want;
    writers_waiting_ += want ? 1 : -1;
}

void PollGroup::reap() {
    auto dead = std::remove_if(entries_.begin(), entries_.end(), [&](const std::unique_ptr<Entry> &e) {
        if (!e->conn->finished()) return false;
        epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, e->conn->fd(), nullptr);
        if (e->watching_write) --writers_waiting_;
        return true;
    });
    if (dead == entries_.end()) return;
    entries_.erase(dead, entries_.end());
    connection_count_.store(entries_.size(), std::memory_order_relaxed);
    update_direct_polling();
}

void PollGroup::update_direct_polling() {
    // Watched fds (aio completions) would wait up to kEpollEveryPasses passes: not with those.
    direct_polling_ = watches_.empty() && !entries_.empty() && entries_.size() <= kDirectPollMaxConnections &&
                      std::all_of(entries_.begin(), entries_.end(), [](const std::unique_ptr<Entry> &e) {
                          return e->conn->polls_without_events();
                      });
}

// A busy pass without epoll: each connection reads what arrived (EAGAIN when nothing did).
bool PollGroup::poll_connections_directly(bool &finished_any) {
    bool work = false;
    for (auto &e : entries_) {
        if (e->conn->finished()) continue;
        work |= e->conn->poll_receive();
        update_interest(*e);
        finished_any |= e->conn->finished();
    }
    return work;
}

Status PollGroup::watch_fd(int fd, FdHandler handler, void *arg) {
    auto w = std::make_unique<FdWatch>(fd, handler, arg);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = static_cast<Source *>(w.get());
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, "poll group " + std::to_string(index_) +
                                                           ": cannot watch fd " + std::to_string(fd) + ": " +
                                                           std::strerror(errno));
    watches_.push_back(std::move(w));
    update_direct_polling();
    return Status::success();
}

void PollGroup::unwatch_fd(int fd) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    std::erase_if(watches_, [fd](const std::unique_ptr<FdWatch> &w) { return w->fd == fd; });
    update_direct_polling();
}

void PollGroup::close_all(const char *why) {
    for (auto &e : entries_) e->conn->close(why);
    reap();
    drain_backend_io();
    close_channels();
    entries_.clear();
    writers_waiting_ = 0;
    connection_count_.store(0, std::memory_order_relaxed);
}

// Closed connections whose requests still have backend I/O in flight stay until it completes
// (the kernel may still be writing into their buffers): keep running completions until then.
void PollGroup::drain_backend_io() {
    constexpr int kMaxWaitMs = 30000;
    epoll_event events[kMaxEvents];
    for (int waited = 0; io_in_flight() > 0 && waited < kMaxWaitMs; waited += 10) {
        int n = epoll_wait(epoll_fd_, events, kMaxEvents, 10);
        for (int i = 0; i < n; ++i) {
            void *tag = events[i].data.ptr;
            if (tag == &kWakeTag || tag == &kPeTag) continue;
            auto *src = static_cast<Source *>(tag);
            if (!src->is_connection) static_cast<FdWatch *>(src)->handler(static_cast<FdWatch *>(src)->arg);
        }
        while (doca_pe_progress(pe_)) {
        }
    }
    if (io_in_flight() > 0)
        skiff::log::get("dataplane")
            ->error("group {}: {} backend I/O still in flight at shutdown", index_, io_in_flight());
}

void PollGroup::run() {
    // This thread's lane in every namespace's I/O gate (fused Compare and Write exclusion).
    nvmeof::target::IoGate::set_thread_lane(index_ % nvmeof::target::IoGate::kMaxLanes);
    epoll_event events[kMaxEvents];
    uint64_t last_work = now_us(), last_timer = 0;
    uint64_t wake_ns = UINT64_MAX; // work waiting for a time (QoS), as the last pass left it
    running_.store(true, std::memory_order_release);
    while (!stop_.load(std::memory_order_relaxed)) {
        uint64_t pass = passes_.load(std::memory_order_relaxed) + 1;
        passes_.store(pass, std::memory_order_release);
        // The pass's loads (namespace lookups) stay after the new count, and the fence pairs with
        // the reclaimer's (TargetService::quiescent_snapshot): a pass that the snapshot did not
        // see starts after the unpublish and cannot find the object. Store then load of
        // different words: both x86 and Arm reorder them without a full fence.
        std::atomic_thread_fence(std::memory_order_seq_cst);
        uint64_t now = now_us();
        bool idle = now - last_work >= options_.idle_poll_us;
        bool work = false, finished_any = false;
        int n = 0;
        // A connection waiting for send space is left to epoll (EPOLLOUT), not retried by hand.
        if (!idle && direct_polling_ && writers_waiting_ == 0 && pass % kEpollEveryPasses != 0) {
            work = poll_connections_directly(finished_any);
        } else {
            // Before sleeping, arm the progress engine so a completion wakes the group.
            if (idle) doca_pe_request_notification(pe_);
            n = epoll_wait(epoll_fd_, events, kMaxEvents, idle ? sleep_timeout_ms(now, wake_ns) : 0);
            work = n > 0;
        }
        for (int i = 0; i < n; ++i) {
            void *tag = events[i].data.ptr;
            if (tag == &kWakeTag) {
                take_new_connections();
            } else if (tag == &kPeTag) {
                doca_pe_clear_notification(pe_, pe_handle_); // progressed below
            } else if (auto *src = static_cast<Source *>(tag); !src->is_connection) {
                auto &w = *static_cast<FdWatch *>(src); // a backend's completions
                w.handler(w.arg);                       // responses it queued go out in progress() below
                finished_any = true;                    // a closed connection's last I/O may have completed
                work = true;
            } else {
                auto &e = *static_cast<Entry *>(src);
                service(e, events[i].events);
                finished_any |= e.conn->finished();
            }
        }
        for (int i = 0; i < kPeBudget && doca_pe_progress(pe_); ++i) work = true;
        for (auto &e : entries_) {
            if (!e->conn->progress()) continue;
            work = true;
            update_interest(*e);
            finished_any |= e->conn->finished();
        }
        wake_ns = take_wake_ns();
        now = now_us();
        if (now / 1000 - last_timer >= kTimerPeriodMs) {
            last_timer = now / 1000;
            for (auto &e : entries_) {
                e->conn->poll(last_timer);
                update_interest(*e);
                finished_any |= e->conn->finished();
            }
            sweep_channels(); // channels of namespaces that are gone
        }
        if (finished_any) reap();
        if (work) {
            last_work = now;
            busy_passes_.store(busy_passes_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
    }
    close_all("target shutting down");
    running_.store(false, std::memory_order_release);
}

} // namespace skiff::dataplane
