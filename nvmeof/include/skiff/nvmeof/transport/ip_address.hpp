// Numeric IP addresses, IPv4 and IPv6, as listeners, referrals, peers and the initiator use them.
// Every parse and print of an address goes through here, so each form is read and written the
// same way everywhere:
// - an address alone has no brackets: "10.0.0.1", "::1" (the configuration's "addr", the
//   discovery log's TRADDR, nvmetcli's traddr, as the Linux target and nvme-cli write them);
// - with a port, an IPv6 address is in brackets: "[::1]:4420" (RFC 3986), so the port's colon
//   cannot be mistaken for one of the address's.
#pragma once

#include "skiff/core/status.hpp"

#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>

namespace skiff::nvmeof::transport {

enum class IpFamily : uint8_t { kIpv4, kIpv6 };

// The family of a numeric address ("10.0.0.1", "fe80::1"), or nullopt when `host` is neither (a
// host name, an address in brackets or with a port).
std::optional<IpFamily> ip_family(const std::string &host);

// The text inet_ntop(3) gives for a numeric address ("::1" for "0:0::1", hex in lower case; IPv4
// as written), or nullopt when `host` is not one. Two spellings of one address compare equal
// once canonical, so the same listener is not configured twice under two names.
std::optional<std::string> canonical_ip(const std::string &host);

// An address alone that a user wrote in brackets ("[::1]", as in a URL) without them; any other
// text as it is. For options that take the address and the port apart (skiff-perf --addr).
std::string strip_brackets(const std::string &host);

// "HOST:PORT", an IPv6 host in brackets: "10.0.0.1:4420", "[::1]:4420".
std::string host_port(const std::string &host, uint16_t port);

// "HOST:PORT" or "[HOST]:PORT" split at the port's colon, without the brackets. Neither part is
// checked further. An error (its message says what is wrong with the form) when there is no
// port, a bracket is unmatched, or a host with colons has no brackets: "::1:4420" could be
// [::1]:4420 or [::1:4420] with no port.
struct HostPortText {
    std::string host;
    std::string port;
};
Result<HostPortText> split_host_port(const std::string &text);

// A socket address (sockaddr_in or sockaddr_in6) for bind(2), connect(2) or rdma_bind_addr(3).
struct SocketAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;

    int family() const { return storage.ss_family; }
    sockaddr *get() { return reinterpret_cast<sockaddr *>(&storage); }
    const sockaddr *get() const { return reinterpret_cast<const sockaddr *>(&storage); }
};

// The socket address of a numeric host and a port; nullopt when `host` is not a numeric address.
std::optional<SocketAddress> socket_address(const std::string &host, uint16_t port);

// "HOST:PORT" of an IPv4 or IPv6 socket address, IPv6 in brackets ("[::1]:51234"); "?" for a
// null address or another family.
std::string describe_socket_address(const sockaddr *sa);

// The port of an IPv4 or IPv6 socket address, 0 for another family.
uint16_t port_of(const sockaddr *sa);

} // namespace skiff::nvmeof::transport
