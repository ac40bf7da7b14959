// One connection (one queue pair) of any transport, as a poll group drives it: the group
// watches fd() and calls in when it is readable or writable and about every 100 ms.
#pragma once

#include "skiff/nvmeof/target/admission.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"

#include <cstdint>
#include <string>

namespace skiff::nvmeof::transport {

class Connection {
  public:
    virtual ~Connection() = default;

    // Called once, on the poll group's thread, when the group takes the connection over (it
    // was created on the acceptor thread): the transport hands ctx to its target::Queue
    // (Queue::attach) so its backend I/O runs on this group's channels and loop.
    virtual void attach(target::PollContext &ctx) = 0;

    virtual int fd() const = 0;
    virtual const std::string &peer() const = 0;
    // Handles what arrived (bounded work per call).
    virtual void on_readable() = 0;
    // True when on_readable() may be called without a readiness event and costs one
    // non-blocking read when nothing arrived: a busy poll group then reads such connections
    // directly instead of asking epoll first (one system call per pass instead of two).
    virtual bool polls_without_events() const { return false; }
    // For those: on_readable() without an event; true when anything arrived.
    virtual bool poll_receive() { return false; }
    // Sends what is queued.
    virtual void on_writable() = 0;
    // True while queued bytes wait for the socket to drain (watch for EPOLLOUT).
    virtual bool wants_write() const = 0;
    // Called every loop iteration: retries work that had to wait (cheap when there is none).
    // Returns true when it did something.
    virtual bool progress() = 0;
    // Timers and async events; `now_ms` is a monotonic clock.
    virtual void poll(uint64_t now_ms) = 0;
    // True once the connection is finished and can be destroyed (peer gone, protocol error
    // reported, Disconnect done, association torn down) and no backend I/O of its requests is
    // still in flight (Queue::io_in_flight() == 0).
    virtual bool finished() const = 0;
    // Ends the connection now (target shutdown).
    virtual void close(const char *why) = 0;

    // The connection's place in the target's connection counts (Admission), given back when
    // the connection is destroyed: after the derived destructor closed the socket.
    void hold(target::ConnectionTicket ticket) { ticket_ = std::move(ticket); }

  private:
    target::ConnectionTicket ticket_;
};

} // namespace skiff::nvmeof::transport
