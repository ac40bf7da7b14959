#include "skiff/nvmeof/tcp/tcp_listener.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace skiff::nvmeof::tcp {

Result<int> listen_tcp(const ListenAddress &addr) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM, std::string("socket: ") + std::strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(addr.port);
    inet_pton(AF_INET, addr.host.c_str(), &sa.sin_addr);
    if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) != 0 || listen(fd, 128) != 0) {
        int err = errno;
        ::close(fd);
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "cannot listen on " + addr.str() + ": " + std::strerror(err));
    }
    return fd;
}

uint16_t bound_port(int fd) {
    sockaddr_in sa{};
    socklen_t len = sizeof(sa);
    getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len);
    return ntohs(sa.sin_port);
}

int accept_tcp(int listen_fd, std::string &peer) {
    sockaddr_in sa{};
    socklen_t len = sizeof(sa);
    int fd = accept4(listen_fd, reinterpret_cast<sockaddr *>(&sa), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
    peer = std::string(ip) + ":" + std::to_string(ntohs(sa.sin_port));
    return fd;
}

} // namespace skiff::nvmeof::tcp
