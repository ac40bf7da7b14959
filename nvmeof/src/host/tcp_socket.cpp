#include "skiff/nvmeof/host/tcp_socket.hpp"

#include "skiff/nvmeof/tls/tls_session.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace skiff::nvmeof::host {
namespace {

int remaining_ms(Deadline deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left < 0 ? 0 : static_cast<int>(left);
}

Error errno_error(const std::string &what, const std::string &peer, int err) {
    doca_error_t code = DOCA_ERROR_IO_FAILED;
    if (err == ECONNRESET || err == EPIPE) code = DOCA_ERROR_CONNECTION_RESET;
    if (err == ECONNREFUSED) code = DOCA_ERROR_CONNECTION_ABORTED;
    return make_error(code,
                      what + " " + peer + ": " + std::strerror(err) + " (errno " + std::to_string(err) + ")");
}

} // namespace

TcpSocket::~TcpSocket() {
    close();
}

TcpSocket::TcpSocket(TcpSocket &&other) noexcept
    : fd_(other.fd_), tls_(std::move(other.tls_)), peer_(std::move(other.peer_)) {
    other.fd_ = -1;
}

TcpSocket &TcpSocket::operator=(TcpSocket &&other) noexcept {
    if (this != &other) {
        close();
        fd_ = other.fd_;
        tls_ = std::move(other.tls_);
        peer_ = std::move(other.peer_);
        other.fd_ = -1;
    }
    return *this;
}

void TcpSocket::close() {
    tls_.reset();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

Result<TcpSocket> TcpSocket::connect(const std::string &addr, uint16_t port,
                                     std::chrono::milliseconds timeout) {
    const std::string peer = transport::host_port(addr, port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *list = nullptr;
    const std::string service = std::to_string(port);
    if (int rc = ::getaddrinfo(addr.c_str(), service.c_str(), &hints, &list); rc != 0)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "cannot resolve target address '" + addr + "': " + ::gai_strerror(rc));

    Error last = make_error(DOCA_ERROR_NOT_FOUND, "no usable address for " + peer);
    const Deadline deadline = deadline_after(timeout);
    for (addrinfo *ai = list; ai; ai = ai->ai_next) {
        TcpSocket s;
        s.peer_ = peer;
        s.fd_ = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (s.fd_ < 0) {
            last = errno_error("socket() for", peer, errno);
            continue;
        }
        int one = 1;
        ::setsockopt(s.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (::connect(s.fd_, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
            last = errno_error("connect to", peer, errno);
            continue;
        }
        if (Status st = s.wait_for(POLLOUT, deadline, "connect to"); !st) {
            last = st.error();
            continue;
        }
        int err = 0;
        socklen_t len = sizeof(err);
        ::getsockopt(s.fd_, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            last = errno_error("connect to", peer, err);
            continue;
        }
        ::freeaddrinfo(list);
        return s;
    }
    ::freeaddrinfo(list);
    return last;
}

Status TcpSocket::wait_for(short events, Deadline deadline, const char *what) {
    for (;;) {
        pollfd p{fd_, events, 0};
        int rc = ::poll(&p, 1, remaining_ms(deadline));
        if (rc > 0) return Status::success();
        if (rc == 0) return make_error(DOCA_ERROR_TIME_OUT, std::string(what) + " " + peer_ + ": timed out");
        if (errno != EINTR) return errno_error(std::string("poll() while ") + what, peer_, errno);
    }
}

Status TcpSocket::send_all(iovec *iov, int iovcnt, Deadline deadline, bool more) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "send to " + peer_ + ": socket is closed");
    msghdr msg{};
    while (iovcnt > 0) {
        if (iov->iov_len == 0) {
            ++iov;
            --iovcnt;
            continue;
        }
        msg.msg_iov = iov;
        msg.msg_iovlen = static_cast<size_t>(iovcnt);
        ssize_t n = io_sendmsg(msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return errno_error("send to", peer_, errno);
            if (Status st = wait_for(POLLOUT, deadline, "send to"); !st) return st;
            continue;
        }
        size_t sent = static_cast<size_t>(n);
        while (iovcnt > 0 && sent >= iov->iov_len) {
            sent -= iov->iov_len;
            ++iov;
            --iovcnt;
        }
        if (iovcnt > 0) {
            iov->iov_base = static_cast<uint8_t *>(iov->iov_base) + sent;
            iov->iov_len -= sent;
        }
    }
    return Status::success();
}

Status TcpSocket::send_all(const void *data, size_t len, Deadline deadline) {
    iovec iov{const_cast<void *>(data), len};
    return send_all(&iov, 1, deadline);
}

Result<size_t> TcpSocket::recv_some(void *data, size_t len, Deadline deadline) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "receive from " + peer_ + ": socket is closed");
    for (;;) {
        iovec v{data, len};
        ssize_t n = io_readv(&v, 1);
        if (n >= 0) return static_cast<size_t>(n);
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return errno_error("receive from", peer_, errno);
        if (Status st = wait_for(POLLIN, deadline, "receive from"); !st) return st.error();
    }
}

Status TcpSocket::recv_exact(void *data, size_t len, Deadline deadline) {
    auto *p = static_cast<uint8_t *>(data);
    size_t got = 0;
    while (got < len) {
        Result<size_t> n = recv_some(p + got, len - got, deadline);
        if (!n) return n.error();
        if (*n == 0)
            return make_error(DOCA_ERROR_CONNECTION_RESET, "connection closed by " + peer_ + " after " +
                                                               std::to_string(got) + " of " +
                                                               std::to_string(len) + " expected bytes");
        got += *n;
    }
    return Status::success();
}

Result<size_t> TcpSocket::try_recv(void *data, size_t len) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "receive from " + peer_ + ": socket is closed");
    for (;;) {
        iovec v{data, len};
        ssize_t n = io_readv(&v, 1);
        if (n > 0) return static_cast<size_t>(n);
        if (n == 0) return make_error(DOCA_ERROR_CONNECTION_RESET, "connection closed by " + peer_);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
        return errno_error("receive from", peer_, errno);
    }
}

Result<size_t> TcpSocket::try_readv(iovec *iov, int iovcnt) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "receive from " + peer_ + ": socket is closed");
    for (;;) {
        ssize_t n = io_readv(iov, iovcnt);
        if (n > 0) return static_cast<size_t>(n);
        if (n == 0) return make_error(DOCA_ERROR_CONNECTION_RESET, "connection closed by " + peer_);
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return size_t{0};
        return errno_error("receive from", peer_, errno);
    }
}

Status TcpSocket::recv_exact(iovec *iov, int iovcnt, Deadline deadline) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "receive from " + peer_ + ": socket is closed");
    size_t total = 0, got = 0;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    while (iovcnt > 0) {
        if (iov->iov_len == 0) {
            ++iov;
            --iovcnt;
            continue;
        }
        ssize_t n = io_readv(iov, iovcnt);
        if (n == 0)
            return make_error(DOCA_ERROR_CONNECTION_RESET, "connection closed by " + peer_ + " after " +
                                                               std::to_string(got) + " of " +
                                                               std::to_string(total) + " expected bytes");
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) return errno_error("receive from", peer_, errno);
            if (Status st = wait_for(POLLIN, deadline, "receive from"); !st) return st;
            continue;
        }
        got += static_cast<size_t>(n);
        size_t left = static_cast<size_t>(n);
        while (iovcnt > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            ++iov;
            --iovcnt;
        }
        if (iovcnt > 0) {
            iov->iov_base = static_cast<uint8_t *>(iov->iov_base) + left;
            iov->iov_len -= left;
        }
    }
    return Status::success();
}

Result<bool> TcpSocket::wait_readable(std::chrono::milliseconds timeout) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "receive from " + peer_ + ": socket is closed");
    if (tls_ && tls_->has_pending()) return true; // records already off the socket
    for (;;) {
        pollfd p{fd_, POLLIN, 0};
        int rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
        if (rc > 0) return true;
        if (rc == 0) return false;
        if (errno != EINTR) return errno_error("poll() on", peer_, errno);
    }
}

Status TcpSocket::start_tls(const tls::SessionPsk &psk, Deadline deadline) {
    if (fd_ < 0) return make_error(DOCA_ERROR_NOT_CONNECTED, "TLS to " + peer_ + ": socket is closed");
    auto session = tls::TlsSession::connect(fd_, psk);
    if (!session) return session.error();
    for (;;) {
        switch ((*session)->handshake()) {
        case tls::TlsSession::Step::kDone:
            tls_ = std::move(session).value();
            return Status::success();
        case tls::TlsSession::Step::kWantRead:
            if (Status st = wait_for(POLLIN, deadline, "TLS handshake with"); !st) return st;
            break;
        case tls::TlsSession::Step::kWantWrite:
            if (Status st = wait_for(POLLOUT, deadline, "TLS handshake with"); !st) return st;
            break;
        case tls::TlsSession::Step::kFailed:
            return make_error(DOCA_ERROR_CONNECTION_ABORTED,
                              "TLS handshake with " + peer_ + " failed: " + (*session)->error());
        }
    }
}

ssize_t TcpSocket::io_sendmsg(const msghdr &msg, int flags) {
    if (tls_ && !tls_->ktls_send()) return tls_->writev(msg.msg_iov, static_cast<int>(msg.msg_iovlen));
    return ::sendmsg(fd_, &msg, flags);
}

ssize_t TcpSocket::io_readv(iovec *iov, int iovcnt) {
    if (tls_) {
        ssize_t n = tls_->readv(iov, iovcnt);
        if (n < 0 && errno == EIO) errno = ECONNRESET; // the session's error() has the detail
        return n;
    }
    return ::readv(fd_, iov, iovcnt);
}

} // namespace skiff::nvmeof::host
