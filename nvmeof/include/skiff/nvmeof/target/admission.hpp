// Admission of connections and queues against the target's limits (Limits::max_connections,
// max_connections_per_host, max_queues_per_host): what keeps one client, hostile or misconfigured,
// from taking every file descriptor and queue the target has. Control plane only (accept,
// Connect, teardown): one mutex, never taken per I/O.
//
// Connections are counted per peer address (the IP, before any NVMe identity is known); queues
// per host NQN. A queue counts against its host only once the host proved who it is: at Connect
// when the host needs no DH-HMAC-CHAP, when its authentication succeeds otherwise. A peer that
// merely claims an NQN (and never authenticates) takes nothing from that host's quota. A refused
// connection is logged at warn, at most once a second per reason with the number refused
// meanwhile, so a flood cannot flood the log too.
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

// One queue's place in its host's count (max_queues_per_host); given back when the ticket is
// destroyed or reset (the queue disconnects). Movable, not copyable; an empty ticket holds nothing.
class QueueTicket {
  public:
    QueueTicket() = default;
    QueueTicket(Admission *owner, std::string hostnqn) : owner_(owner), hostnqn_(std::move(hostnqn)) {}
    QueueTicket(QueueTicket &&o) noexcept : owner_(o.owner_), hostnqn_(std::move(o.hostnqn_)) {
        o.owner_ = nullptr;
    }
    QueueTicket &operator=(QueueTicket &&o) noexcept;
    QueueTicket(const QueueTicket &) = delete;
    QueueTicket &operator=(const QueueTicket &) = delete;
    ~QueueTicket() { reset(); }

    explicit operator bool() const { return owner_ != nullptr; }
    void reset();

  private:
    Admission *owner_ = nullptr;
    std::string hostnqn_;
};

class Admission {
  public:
    explicit Admission(const Limits &limits) : limits_(limits) {}

    // `peer` is "ADDR:PORT" (the port is ignored). An empty ticket when a limit is reached: the
    // caller closes the connection; the refusal is already logged (rate-limited).
    ConnectionTicket admit_connection(const std::string &peer);

    // A queue of `hostnqn` is admitted (Connect without authentication, or authentication
    // succeeded): its ticket, or an empty one (and a warn log naming the host and the limit) when
    // the host already has max_queues_per_host queues.
    QueueTicket take_queue(const std::string &hostnqn, const char *peer);
    // Whether the host has room for one more queue, taking nothing: a Connect that must still
    // authenticate is refused early when the host is already at its limit (logged as take_queue).
    bool queue_room(const std::string &hostnqn, const char *peer);

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
    friend class QueueTicket;
    void release_connection(const std::string &host);
    void release_queue(const std::string &hostnqn);
    // Called with mu_ held: false (counted and logged) when the host is at its queue limit.
    bool has_queue_room(const std::string &hostnqn, const char *peer);
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
