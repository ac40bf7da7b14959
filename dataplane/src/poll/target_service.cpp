#include "skiff/dataplane/target_service.hpp"

#include "skiff/core/dpa_quiescence.hpp"
#include "skiff/core/log.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace skiff::dataplane {

using nvmeof::transport::ListenAddress;

TargetService::TargetService(nvmeof::target::Target &target, ServiceOptions options)
    : target_(target), options_(std::move(options)) {}

TargetService::~TargetService() {
    stop();
    for (auto &[id, l] : listeners_) ::close(l.fd);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

Result<nvmeof::target::Port>
TargetService::open_listener(const ListenAddress &addr, bool discovery_only,
                             std::optional<std::vector<std::string>> subsystems) {
    auto log = skiff::log::get("target");
    auto transport = transport_for(addr.trtype);
    if (!transport) return transport.error();
    nvmeof::transport::Transport *t = *transport;
    auto fd = t->listen(addr);
    if (!fd) return fd.error();
    ListenAddress bound = addr;
    bound.port = t->bound_port(*fd);
    nvmeof::target::Port port;
    port.trtype = addr.trtype;
    port.traddr = bound.host;
    port.trsvcid = std::to_string(bound.port);
    port.discovery_only = discovery_only;
    port.subsystems = std::move(subsystems);
    port.secure_channel = addr.secure_channel;
    port.allow_plaintext_psk_hosts = addr.allow_plaintext_psk_hosts;
    port = target_.add_port(port);
    {
        std::lock_guard lock(listeners_mu_);
        listeners_[port.id] = {*fd, bound, port, t, 0, 0, 0};
    }
    if (epoll_fd_ >= 0) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = port.id;
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, *fd, &ev);
    }
    std::string tls = addr.secure_channel == nvmeof::target::SecureChannel::kNone
                          ? ""
                          : std::string(", TLS ") + nvmeof::target::to_string(addr.secure_channel);
    if (discovery_only) {
        log->info("listening: {} {} (discovery{})", t->name(), bound.str(), tls);
    } else {
        std::string names;
        for (auto &s : target_.subsystems())
            if (port.lists(s->nqn())) names += (names.empty() ? "" : ", ") + s->nqn();
        log->info("listening: {} {} (subsystem {}; discovery too{})", t->name(), bound.str(),
                  names.empty() ? "none" : names, tls);
    }
    return port;
}

Status TargetService::start() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = UINT64_MAX;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    for (auto &addr : options_.listeners)
        if (auto p = open_listener(addr, false, std::nullopt); !p) return p.error();
    if (options_.discovery)
        if (auto p = open_listener(*options_.discovery, true, std::nullopt); !p) return p.error();
    int n = std::max(1, options_.poll_groups);
    for (int i = 0; i < n; ++i) {
        groups_.push_back(std::make_unique<PollGroup>(i, options_.poll));
        if (auto st = groups_.back()->start(); !st) return st;
    }
    acceptor_ = std::thread([this] { accept_loop(); });
    started_ = true;
    return Status::success();
}

void TargetService::stop() {
    if (!started_) return;
    started_ = false;
    uint64_t one = 1;
    [[maybe_unused]] ssize_t r = write(wake_fd_, &one, sizeof(one));
    acceptor_.join();
    for (auto &g : groups_) g->stop();
    skiff::log::get("target")->info("stopped: all connections closed");
}

Result<nvmeof::target::Port> TargetService::add_listener(const ListenAddress &addr, bool discovery_only,
                                                         std::optional<std::vector<std::string>> subsystems) {
    return open_listener(addr, discovery_only, std::move(subsystems));
}

Status TargetService::remove_listener(uint16_t port_id) {
    std::lock_guard lock(listeners_mu_);
    auto it = listeners_.find(port_id);
    if (it == listeners_.end())
        return make_error(DOCA_ERROR_NOT_FOUND, "no listener with port id " + std::to_string(port_id));
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, it->second.fd, nullptr);
    ::close(it->second.fd);
    skiff::log::get("target")->info("stopped listening: {} {}", it->second.addr.trtype,
                                    it->second.addr.str());
    listeners_.erase(it);
    target_.remove_port(port_id);
    return Status::success();
}

std::optional<ListenAddress> TargetService::listener_address(uint16_t port_id) const {
    std::lock_guard lock(listeners_mu_);
    auto it = listeners_.find(port_id);
    if (it == listeners_.end()) return std::nullopt;
    return it->second.addr;
}

Result<nvmeof::transport::Transport *> TargetService::transport_for(const std::string &trtype) {
    std::lock_guard lock(listeners_mu_);
    for (auto &t : transports_)
        if (trtype == t->name()) return t.get();
    auto made = nvmeof::transport::make_transport(trtype, options_.datapath);
    if (!made) return made.error();
    transports_.push_back(std::move(made.value()));
    return transports_.back().get();
}

std::vector<ListenAddress> TargetService::bound() const {
    std::lock_guard lock(listeners_mu_);
    std::vector<ListenAddress> out;
    for (bool discovery : {false, true})
        for (auto &[id, l] : listeners_)
            if (l.port.discovery_only == discovery) out.push_back(l.addr);
    return out;
}

std::vector<uint64_t> TargetService::quiescent_snapshot() const {
    // The caller has just unpublished something: the fence keeps those stores before the loads of
    // the counters, pairing with the poll groups' and execution units' fences.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::vector<uint64_t> out;
    for (auto &g : groups_) out.push_back(g->passes());
    append_run_sequences(out);
    return out;
}

void TargetService::append_run_sequences(std::vector<uint64_t> &out) const {
    std::lock_guard lock(listeners_mu_);
    for (auto &t : transports_) t->append_run_sequences(out);
}

bool TargetService::passed(const std::vector<uint64_t> &snapshot) const {
    size_t i = 0;
    for (; i < snapshot.size() && i < groups_.size(); ++i)
        if (groups_[i]->running() && groups_[i]->passes() <= snapshot[i]) return false;
    // Threads outside the poll groups (DPA execution units) after them, in a stable order; a
    // transport that started its threads after the snapshot adds entries that need no check.
    std::vector<uint64_t> now;
    append_run_sequences(now);
    for (size_t k = 0; i < snapshot.size() && k < now.size(); ++i, ++k)
        if (!core::dpa::eu_passed(snapshot[i], now[k])) return false;
    return true;
}

void TargetService::accept_loop() {
    epoll_event events[16];
    for (;;) {
        int n = epoll_wait(epoll_fd_, events, 16, -1);
        if (n < 0 && errno == EINTR) continue;
        for (int i = 0; i < n; ++i) {
            if (events[i].data.u64 == UINT64_MAX) return; // stop()
            std::lock_guard lock(listeners_mu_);
            auto it = listeners_.find(static_cast<uint16_t>(events[i].data.u64));
            if (it == listeners_.end()) continue; // removed meanwhile
            Listener &l = it->second;
            // The group is chosen first: a transport may share resources per group.
            for (;;) {
                errno = 0; // tells "nothing pending" from "out of file descriptors" below
                auto conn = l.transport->accept(l.fd, target_, l.port, int(next_group_ % groups_.size()));
                if (!conn) break;
                if (!admit(*conn)) {
                    ++l.refused_limit;
                    continue;
                }
                ++l.accepted;
                groups_[next_group_++ % groups_.size()]->add_connection(std::move(conn));
            }
            if (errno == EMFILE || errno == ENFILE) {
                ++l.accept_failed;
                pause_accepting(l.addr);
            }
        }
    }
}

std::vector<TargetService::ListenerStats> TargetService::listener_stats() const {
    std::lock_guard lock(listeners_mu_);
    std::vector<ListenerStats> out;
    for (auto &[id, l] : listeners_) out.push_back({l.addr, l.accepted, l.refused_limit, l.accept_failed});
    return out;
}

// Over a connection limit: the connection is closed right away (Admission logged why). It never
// reaches a poll group, and its transport allocated nothing but the accepted socket (NVMe/TCP
// allocates its queue at ICReq).
bool TargetService::admit(nvmeof::transport::Connection &conn) {
    nvmeof::target::ConnectionTicket ticket = target_.admission().admit_connection(conn.peer());
    if (!ticket) {
        conn.close("connection limit reached");
        return false;
    }
    conn.hold(std::move(ticket));
    return true;
}

// Out of file descriptors: the pending connection stays in the listen backlog, so the listener
// stays readable; sleep briefly instead of spinning on accept, and say so at most once a second.
void TargetService::pause_accepting(const ListenAddress &addr) {
    using clock = std::chrono::steady_clock;
    static clock::time_point last_log;
    if (clock::now() - last_log >= std::chrono::seconds(1)) {
        last_log = clock::now();
        skiff::log::get("target")->warn("cannot accept on {}: {} (raise the file limit, or set "
                                        "max_connections below it); retrying",
                                        addr.str(), std::strerror(errno));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

} // namespace skiff::dataplane
