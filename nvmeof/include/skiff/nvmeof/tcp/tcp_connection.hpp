// One NVMe/TCP connection (one queue pair) on the target side. A poll group owns it and calls
// it when its socket is readable or writable and about every 100 ms; everything else (PDU
// framing, digests, R2T/H2CData, C2HData, TermReq) happens inside.
#pragma once

#include "skiff/nvmeof/target/port.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace skiff::nvmeof::tcp {

class TcpConnection {
  public:
    virtual ~TcpConnection() = default;

    // Takes ownership of a connected, non-blocking socket.
    static std::unique_ptr<TcpConnection> create(int fd, std::string peer, target::Target &target,
                                                 target::Port port);

    virtual int fd() const = 0;
    virtual const std::string &peer() const = 0;
    // Reads and handles what the socket holds (bounded work per call).
    virtual void on_readable() = 0;
    // Sends what is queued.
    virtual void on_writable() = 0;
    // True while queued bytes wait for the socket to drain (watch for EPOLLOUT).
    virtual bool wants_write() const = 0;
    // Timers and async events; `now_ms` is a monotonic clock.
    virtual void poll(uint64_t now_ms) = 0;
    // True once the connection is finished and can be destroyed (peer gone, protocol error
    // reported, Disconnect done, association torn down).
    virtual bool finished() const = 0;
    // Ends the connection now (target shutdown).
    virtual void close(const char *why) = 0;
};

} // namespace skiff::nvmeof::tcp
