// Plain client sockets for the hostile-client and bad-input tests: connect from a chosen loopback
// address (127.0.0.2 is another "host" to the target's per-address limit), do the ICReq by hand,
// wait for the target to close, and name the socket the way the target's log does.
#pragma once

#include "skiff/nvmeof/host/pdu_framing.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

namespace skiff::itest {

// A plain client socket, optionally bound to a loopback source address (127.0.0.2, ...): a
// second "host" on the same machine, as the per-address limit sees it.
struct RawClient {
    int fd = -1;
    RawClient() = default;
    RawClient(RawClient &&o) noexcept : fd(o.fd) { o.fd = -1; }
    RawClient &operator=(RawClient &&o) noexcept {
        std::swap(fd, o.fd);
        return *this;
    }
    ~RawClient() {
        if (fd >= 0) ::close(fd);
    }
};

inline RawClient raw_connect(uint16_t port, const char *source = "127.0.0.1") {
    RawClient c;
    c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
        ADD_FAILURE() << "socket: " << std::strerror(errno);
        return c;
    }
    sockaddr_in src{};
    src.sin_family = AF_INET;
    inet_pton(AF_INET, source, &src.sin_addr);
    if (::bind(c.fd, reinterpret_cast<sockaddr *>(&src), sizeof(src)) != 0)
        ADD_FAILURE() << "bind " << source << ": " << std::strerror(errno);
    sockaddr_in dst{};
    dst.sin_family = AF_INET;
    dst.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    if (::connect(c.fd, reinterpret_cast<sockaddr *>(&dst), sizeof(dst)) != 0)
        ADD_FAILURE() << "connect from " << source << ": " << std::strerror(errno);
    return c;
}

inline void send_bytes(int fd, const void *data, size_t len) {
    ASSERT_EQ(::send(fd, data, len, MSG_NOSIGNAL), static_cast<ssize_t>(len)) << std::strerror(errno);
}

// Waits until the target closes the connection (EOF or reset); data that arrives first is read
// and discarded. True when it closed within `timeout`.
inline bool closed_within(int fd, std::chrono::milliseconds timeout) {
    auto end = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        uint8_t sink[512];
        ssize_t n = ::recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
    }
}

// Sends an ICReq and reads the ICResp: true when the target answered (the connection was
// admitted), false when it closed the connection instead.
inline bool ic_handshake(int fd) {
    nvmeof::wire::tcp::IcReq req = nvmeof::host::make_ic_req(false, false, 0, 0);
    if (::send(fd, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req)) return false;
    nvmeof::wire::tcp::IcResp resp{};
    size_t got = 0;
    while (got < sizeof(resp)) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 10000) <= 0) return false;
        ssize_t n = ::recv(fd, reinterpret_cast<uint8_t *>(&resp) + got, sizeof(resp) - got, 0);
        if (n <= 0) return false;
        got += static_cast<size_t>(n);
    }
    return resp.ch.type == nvmeof::wire::tcp::kIcResp;
}

// The local port of a client socket: how the target's log names this peer.
inline std::string local_peer(int fd) {
    sockaddr_in sa{};
    socklen_t len = sizeof(sa);
    getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(sa.sin_port));
}

} // namespace skiff::itest
