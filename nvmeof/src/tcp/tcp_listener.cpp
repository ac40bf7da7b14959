#include "skiff/nvmeof/tcp/tcp_listener.hpp"

#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace skiff::nvmeof::tcp {

Result<int> listen_tcp(const ListenAddress &addr) {
    auto sa = transport::socket_address(addr.host, addr.port);
    if (!sa)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "cannot listen on " + addr.str() + ": not an IPv4 or IPv6 address");
    int fd = socket(sa->family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "cannot listen on " + addr.str() + ": socket: " + std::strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    // "::" then means every IPv6 address only: IPv4 connections stay with an IPv4 listener (or
    // none), whatever net.ipv6.bindv6only says, so "0.0.0.0" and "::" can listen side by side.
    if (sa->family() == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, sa->get(), sa->length) != 0 || listen(fd, 128) != 0) {
        int err = errno;
        ::close(fd);
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "cannot listen on " + addr.str() + ": " + std::strerror(err));
    }
    return fd;
}

uint16_t bound_port(int fd) {
    sockaddr_storage sa{};
    socklen_t len = sizeof(sa);
    getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
    return transport::port_of(reinterpret_cast<sockaddr *>(&sa));
}

int accept_tcp(int listen_fd, std::string &peer) {
    sockaddr_storage sa{};
    socklen_t len = sizeof(sa);
    int fd = accept4(listen_fd, reinterpret_cast<sockaddr *>(&sa), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    peer = transport::describe_socket_address(reinterpret_cast<sockaddr *>(&sa));
    return fd;
}

} // namespace skiff::nvmeof::tcp
