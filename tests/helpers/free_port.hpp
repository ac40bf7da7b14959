// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released), and
// whether this machine has an IPv6 loopback. Shared by the in-process dataplane tests and the
// integration tests that start skiff-target.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace skiff::itest {

// Never the same port twice in a row of calls: the kernel may hand a just-released port out again,
// and a test that takes two (an I/O and a discovery listener) must get two.
inline uint16_t free_port() {
    static uint16_t recent[16] = {};
    static unsigned next = 0;
    for (;;) {
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a));
        socklen_t len = sizeof(a);
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
        ::close(fd);
        uint16_t port = ntohs(a.sin_port);
        bool seen = false;
        for (uint16_t r : recent) seen = seen || r == port;
        if (seen) continue;
        recent[next++ % 16] = port;
        return port;
    }
}

// Whether a TCP socket can bind ::1 (a kernel without IPv6, or with it disabled on lo, cannot):
// the IPv6 tests skip without it.
inline bool has_ipv6_loopback() {
    int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) == 0;
    ::close(fd);
    return bound;
}

} // namespace skiff::itest
