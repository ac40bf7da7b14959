#include "skiff/nvmeof/tcp/tcp_transport.hpp"

#include "skiff/nvmeof/tcp/tcp_listener.hpp"
#include "tcp_queue_pair.hpp"

namespace skiff::nvmeof::tcp {

Result<int> TcpTransport::listen(const transport::ListenAddress &addr) {
    return listen_tcp(addr);
}

uint16_t TcpTransport::bound_port(int listen_fd) const {
    return tcp::bound_port(listen_fd);
}

std::unique_ptr<transport::Connection> TcpTransport::accept(int listen_fd, target::Target &target,
                                                            const target::Port &port, int /*group*/) {
    std::string peer;
    int fd = accept_tcp(listen_fd, peer);
    if (fd < 0) return nullptr;
    return std::make_unique<TcpQueuePair>(fd, std::move(peer), target, port);
}

} // namespace skiff::nvmeof::tcp
