#include "skiff/dataplane/target_service.hpp"

#include "skiff/core/log.hpp"

#include <cerrno>
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
    for (auto &l : listeners_) ::close(l.fd);
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
}

Status TargetService::start() {
    auto log = skiff::log::get("target");
    auto open = [&](const ListenAddress &addr, bool discovery_only) -> Status {
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
        port = target_.add_port(port);
        listeners_.push_back({*fd, bound, port, t});
        if (discovery_only) {
            log->info("listening: {} {} (discovery)", t->name(), bound.str());
        } else {
            std::string names;
            for (auto &s : target_.subsystems()) names += (names.empty() ? "" : ", ") + s->nqn();
            log->info("listening: {} {} (subsystem {}; discovery too)", t->name(), bound.str(),
                      names);
        }
        return Status::success();
    };
    for (auto &addr : options_.listeners)
        if (auto st = open(addr, false); !st) return st;
    if (options_.discovery)
        if (auto st = open(*options_.discovery, true); !st) return st;

    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = UINT64_MAX;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
    for (size_t i = 0; i < listeners_.size(); ++i) {
        ev.data.u64 = i;
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listeners_[i].fd, &ev);
    }
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

Result<nvmeof::transport::Transport *> TargetService::transport_for(const std::string &trtype) {
    for (auto &t : transports_)
        if (trtype == t->name()) return t.get();
    auto made = nvmeof::transport::make_transport(trtype);
    if (!made) return made.error();
    transports_.push_back(std::move(made.value()));
    return transports_.back().get();
}

std::vector<ListenAddress> TargetService::bound() const {
    std::vector<ListenAddress> out;
    for (auto &l : listeners_) out.push_back(l.addr);
    return out;
}

void TargetService::accept_loop() {
    epoll_event events[16];
    for (;;) {
        int n = epoll_wait(epoll_fd_, events, 16, -1);
        if (n < 0 && errno == EINTR) continue;
        for (int i = 0; i < n; ++i) {
            if (events[i].data.u64 == UINT64_MAX) return; // stop()
            const Listener &l = listeners_[events[i].data.u64];
            while (auto conn = l.transport->accept(l.fd, target_, l.port))
                groups_[next_group_++ % groups_.size()]->add_connection(std::move(conn));
        }
    }
}

} // namespace skiff::dataplane
