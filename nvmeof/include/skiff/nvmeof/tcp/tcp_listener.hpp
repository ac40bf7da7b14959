// Listening sockets for NVMe/TCP.
#pragma once

#include "skiff/core/status.hpp"

#include <cstdint>
#include <string>

namespace skiff::nvmeof::tcp {

struct ListenAddress {
    std::string host; // dotted IPv4
    uint16_t port = 0;

    std::string str() const { return host + ":" + std::to_string(port); }
};

// Parses "ADDR:PORT" (IPv4). The error names the text and the expected form.
Result<ListenAddress> parse_listen_address(const std::string &text);

// A non-blocking listening socket bound to addr (port 0 picks a free port).
// On failure the error names the address and the errno text.
Result<int> listen_tcp(const ListenAddress &addr);
// The port a bound socket ended up with.
uint16_t bound_port(int fd);

// Accepts one connection as a non-blocking socket with TCP_NODELAY. Returns -1 when none is
// pending; sets peer to "ADDR:PORT".
int accept_tcp(int listen_fd, std::string &peer);

} // namespace skiff::nvmeof::tcp
