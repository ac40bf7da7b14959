// Admission of connections and queues against the target's limits (Limits::max_connections,
// max_connections_per_host, max_queues_per_host): what keeps one client, hostile or misconfigured,
// from taking every file descriptor and queue the target has. Control plane only (accept,
// Connect, teardown): one mutex, never taken per I/O.
//
// Connections are counted per peer address (the IP, before any NVMe identity is known); queues
// per host NQN (known at Connect). A refused connection is logged at warn, at most once a second
// per reason with the number refused meanwhile, so a flood cannot flood the log too.
#pragma once

#include "skiff/nvmeof/target/limits.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

class Admission;

// One admitted connection's place in the counts; given back when the ticket is destroyed (with
// the connection that holds it). Movable, not copyable; an empty ticket holds nothing.
class ConnectionTicket {
  public:
    ConnectionTicket() = default;
    ConnectionTicket(Admission *owner, std::string host) : owner_(owner), host_(std::move(host)) {}
    ConnectionTicket(ConnectionTicket &&o) noexcept : owner_(o.owner_), host_(std::move(o.host_)) {
        o.owner_ = nullptr;
    }
    ConnectionTicket &operator=(ConnectionTicket &&o) noexcept;
    ConnectionTicket(const ConnectionTicket &) = delete;
    ConnectionTicket &operator=(const ConnectionTicket &) = delete;
    ~ConnectionTicket() { reset(); }

    explicit operator bool() const { return owner_ != nullptr; }
    void reset();

  private:
    Admission *owner_ = nullptr;
    std::string host_;
};

class Admission {
  public:
    explicit Admission(const Limits &limits) : limits_(limits) {}

    // `peer` is "ADDR:PORT" (the port is ignored). An empty ticket when a limit is reached: the
    // caller closes the connection; the refusal is already logged (rate-limited).
    ConnectionTicket admit_connection(const std::string &peer);

    // A queue of `hostnqn` is being connected: false (and a warn log naming the host and the
    // limit) when the host already has max_queues_per_host queues. release_queue undoes a take.
    bool take_queue(const std::string &hostnqn, const char *peer);
    void release_queue(const std::string &hostnqn);

    struct Counts {
        uint64_t connections = 0;
        std::vector<std::pair<std::string, uint64_t>> connections_per_host; // by address
        std::vector<std::pair<std::string, uint64_t>> queues_per_host;      // by host NQN
        uint64_t refused_connections = 0;                                   // since start
        uint64_t refused_queues = 0;
    };
    Counts counts() const;

    // "ADDR:PORT" -> "ADDR" (an IPv6 "[ADDR]:PORT" -> "ADDR").
    static std::string host_of(const std::string &peer);

  private:
    friend class ConnectionTicket;
    void release_connection(const std::string &host);
    void log_refusal(const char *reason, const std::string &peer, uint32_t limit);

    const Limits limits_;
    mutable std::mutex mu_;
    uint64_t connections_ = 0;
    std::map<std::string, uint64_t> per_host_; // connections by address
    std::map<std::string, uint64_t> queues_;   // queues by host NQN
    uint64_t refused_connections_ = 0, refused_queues_ = 0;
    // Rate limit of the refusal log: the last warn's time and what was refused since.
    uint64_t last_refusal_log_ms_ = 0;
    uint64_t refusals_unlogged_ = 0;
};

} // namespace skiff::nvmeof::target
