// The NVMe/TCP transport: listeners and accepted connections (TcpQueuePair inside).
#pragma once

#include "skiff/nvmeof/transport/transport.hpp"

namespace skiff::nvmeof::tcp {

class TcpTransport final : public transport::Transport {
  public:
    const char *name() const override { return "tcp"; }
    Result<int> listen(const transport::ListenAddress &addr) override;
    uint16_t bound_port(int listen_fd) const override;
    std::unique_ptr<transport::Connection> accept(int listen_fd, target::Target &target,
                                                  const target::Port &port, int group) override;
};

} // namespace skiff::nvmeof::tcp
