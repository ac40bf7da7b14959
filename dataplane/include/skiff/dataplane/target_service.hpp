// The running target: listeners, an acceptor thread, and the poll groups it feeds round-robin.
// skiff-target is a thin command line over this; tests run it in-process.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/dataplane/poll_group.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
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
    // Where transports run their I/O queues' data path (dpa: NVMe/RDMA I/O queues on DPA threads).
    nvmeof::transport::DataPathOptions datapath;
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
    size_t group_count() const { return groups_.size(); }

    // Live listener changes (control plane, any thread; after start()). add_listener binds
    // and registers the port, returning it; remove_listener stops accepting on it (connections
    // made through it stay).
    Result<nvmeof::target::Port>
    add_listener(const nvmeof::transport::ListenAddress &addr, bool discovery_only,
                 std::optional<std::vector<std::string>> subsystems = std::nullopt);
    Status remove_listener(uint16_t port_id);
    // The bound address of a port (port 0 resolved).
    std::optional<nvmeof::transport::ListenAddress> listener_address(uint16_t port_id) const;

    // Per listener since it opened (the metrics endpoint): connections accepted, refused at accept
    // by a connection limit (max_connections, max_connections_per_host), and accept calls that
    // failed for want of file descriptors.
    struct ListenerStats {
        nvmeof::transport::ListenAddress addr; // as bound (port 0 resolved)
        uint64_t accepted = 0;
        uint64_t refused_limit = 0;
        uint64_t accept_failed = 0;
    };
    std::vector<ListenerStats> listener_stats() const;
    // Every poll group's count of loop passes (quiescent points), then the run sequences of the
    // threads outside the poll groups that run command code (the DPA's execution units in the
    // dpa data path): a snapshot taken after some change is passed once no thread still runs
    // code that saw the state before it.
    std::vector<uint64_t> quiescent_snapshot() const;
    bool passed(const std::vector<uint64_t> &snapshot) const;

  private:
    struct Listener {
        int fd;
        nvmeof::transport::ListenAddress addr;
        nvmeof::target::Port port;
        nvmeof::transport::Transport *transport;
        // Written by the acceptor under listeners_mu_.
        uint64_t accepted = 0, refused_limit = 0, accept_failed = 0;
    };
    void accept_loop();
    bool admit(nvmeof::transport::Connection &conn);
    void pause_accepting(const nvmeof::transport::ListenAddress &addr);
    void append_run_sequences(std::vector<uint64_t> &out) const;
    Result<nvmeof::target::Port> open_listener(const nvmeof::transport::ListenAddress &addr,
                                               bool discovery_only,
                                               std::optional<std::vector<std::string>> subsystems);
    // The transport serving trtype, created on first use.
    Result<nvmeof::transport::Transport *> transport_for(const std::string &trtype);

    nvmeof::target::Target &target_;
    ServiceOptions options_;
    std::vector<std::unique_ptr<nvmeof::transport::Transport>> transports_;
    mutable std::mutex listeners_mu_;        // control plane: the acceptor and live changes
    std::map<uint16_t, Listener> listeners_; // by port id
    std::vector<std::unique_ptr<PollGroup>> groups_;
    std::thread acceptor_;
    int epoll_fd_ = -1;
    int wake_fd_ = -1;
    size_t next_group_ = 0;
    bool started_ = false;
};

} // namespace skiff::dataplane
