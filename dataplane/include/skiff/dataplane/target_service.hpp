// The running target: listeners, an acceptor thread, and the poll groups it feeds round-robin.
// skiff-target is a thin command line over this; tests run it in-process.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/dataplane/poll_group.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace skiff::dataplane {

struct ServiceOptions {
    // Each listener names its transport (ListenAddress::trtype); one Transport per kind.
    std::vector<nvmeof::transport::ListenAddress> listeners;   // I/O listeners
    std::optional<nvmeof::transport::ListenAddress> discovery; // dedicated discovery listener
    int poll_groups = 1;
    PollGroupOptions poll; // adaptive polling of every group
};

class TargetService {
  public:
    TargetService(nvmeof::target::Target &target, ServiceOptions options);
    ~TargetService();

    // Creates the transport, binds every listener (the error names the address and errno text), then starts
    // the poll groups and the acceptor.
    Status start();
    void stop();

    // The addresses actually bound, I/O listeners first, then discovery (port 0 resolved).
    std::vector<nvmeof::transport::ListenAddress> bound() const;
    const PollGroup &group(size_t i) const { return *groups_.at(i); }

  private:
    struct Listener {
        int fd;
        nvmeof::transport::ListenAddress addr;
        nvmeof::target::Port port;
        nvmeof::transport::Transport *transport;
    };
    void accept_loop();
    // The transport serving trtype, created on first use.
    Result<nvmeof::transport::Transport *> transport_for(const std::string &trtype);

    nvmeof::target::Target &target_;
    ServiceOptions options_;
    std::vector<std::unique_ptr<nvmeof::transport::Transport>> transports_;
    std::vector<Listener> listeners_;
    std::vector<std::unique_ptr<PollGroup>> groups_;
    std::thread acceptor_;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;
    size_t next_group_ = 0;
    bool started_ = false;
};

} // namespace skiff::dataplane
