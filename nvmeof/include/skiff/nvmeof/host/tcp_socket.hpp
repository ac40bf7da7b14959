// A connected TCP socket with deadline-bounded "send everything" / "receive exactly" calls: the
// byte pipe under one NVMe/TCP queue. Non-blocking underneath, waits with poll(2).
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/tls/tls_session.hpp"

#include <sys/socket.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace skiff::nvmeof::host {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

inline Deadline deadline_after(std::chrono::milliseconds ms) {
    return Clock::now() + ms;
}

class TcpSocket {
  public:
    TcpSocket() = default;
    ~TcpSocket();
    TcpSocket(TcpSocket &&other) noexcept;
    TcpSocket &operator=(TcpSocket &&other) noexcept;
    TcpSocket(const TcpSocket &) = delete;
    TcpSocket &operator=(const TcpSocket &) = delete;

    // Connects to addr:port (numeric IPv4/IPv6 or a host name), TCP_NODELAY set.
    static Result<TcpSocket> connect(const std::string &addr, uint16_t port,
                                     std::chrono::milliseconds timeout);

    // Sends every byte of the iovecs (modified in place as they drain). more: the caller sends
    // again right away (MSG_MORE), so the kernel may put both into one segment.
    Status send_all(iovec *iov, int iovcnt, Deadline deadline, bool more = false);
    Status send_all(const void *data, size_t len, Deadline deadline);

    // Receives exactly len bytes. A peer that closes first is DOCA_ERROR_CONNECTION_RESET.
    Status recv_exact(void *data, size_t len, Deadline deadline);

    // Waits until a byte can be read (true), or the timeout passes (false). A closed peer counts
    // as readable: the next recv reports it.
    Result<bool> wait_readable(std::chrono::milliseconds timeout);

    // Receives whatever is available now, up to len bytes; 0 means the peer closed.
    Result<size_t> recv_some(void *data, size_t len, Deadline deadline);

    // One non-blocking receive: the bytes that were there (0 = none yet). A closed peer is
    // DOCA_ERROR_CONNECTION_RESET.
    Result<size_t> try_recv(void *data, size_t len);

    // One non-blocking readv: the bytes placed (0 = none yet). A closed peer is
    // DOCA_ERROR_CONNECTION_RESET.
    Result<size_t> try_readv(iovec *iov, int iovcnt);

    // Fills every iovec completely (modified in place), in as few system calls as possible.
    Status recv_exact(iovec *iov, int iovcnt, Deadline deadline);

    // NVMe/TCP secure channel: a TLS 1.3 handshake offering psk's identity. Afterwards every
    // call above sends and receives through the session (user-space records, or kTLS).
    Status start_tls(const tls::SessionPsk &psk, Deadline deadline);
    bool tls() const { return tls_ != nullptr; }
    const tls::TlsSession *tls_session() const { return tls_.get(); }

    void close();
    bool is_open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    const std::string &peer() const { return peer_; }

  private:
    Status wait_for(short events, Deadline deadline, const char *what);
    // sendmsg / readv / recv, or through the TLS session: same contract (-1 and errno).
    ssize_t io_sendmsg(const msghdr &msg, int flags);
    ssize_t io_readv(iovec *iov, int iovcnt);

    int fd_ = -1;
    std::unique_ptr<tls::TlsSession> tls_;
    std::string peer_; // "addr:port" ("[addr]:port" for IPv6), for messages
};

} // namespace skiff::nvmeof::host
