// Listening and accepting sockets for NVMe/TCP.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <cstdint>
#include <string>

namespace skiff::nvmeof::tcp {

using transport::ListenAddress;

// A non-blocking listening socket bound to addr (port 0 picks a free port).
// On failure the error names the address and the errno text.
Result<int> listen_tcp(const ListenAddress &addr);
// The port a bound socket ended up with.
uint16_t bound_port(int fd);

// Accepts one connection as a non-blocking socket with TCP_NODELAY. Returns -1 when none is
// pending; sets peer to "ADDR:PORT" ("[ADDR]:PORT" for IPv6).
int accept_tcp(int listen_fd, std::string &peer);

} // namespace skiff::nvmeof::tcp
