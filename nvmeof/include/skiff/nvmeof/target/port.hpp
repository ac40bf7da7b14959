// A transport address the target listens on (nvmet calls it a port) and what it exposes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skiff::nvmeof::target {

// TLS on an NVMe/TCP listener (TP 8011): none (plain NVMe/TCP only), optional (either: a TLS
// ClientHello or a plain ICReq), required (TLS only; a plain ICReq is refused).
enum class SecureChannel : uint8_t { kNone, kOptional, kRequired };
const char *to_string(SecureChannel sc);
std::optional<SecureChannel> parse_secure_channel(const std::string &text);

struct Port {
    uint16_t id = 0;
    std::string trtype = "tcp"; // "tcp" or "rdma" (discovery log TRTYPE)
    std::string traddr;         // "127.0.0.1"
    std::string trsvcid;        // "4420"
    // A dedicated discovery listener exposes only the discovery subsystem; an I/O listener
    // exposes every subsystem and, as Linux nvmet does, the discovery subsystem as well.
    bool discovery_only = false;
    // The NVM subsystems an I/O listener exposes; nullopt: every subsystem (the default).
    std::optional<std::vector<std::string>> subsystems;

    SecureChannel secure_channel = SecureChannel::kNone; // tcp only
    // With secure_channel optional: whether a host that has a TLS PSK may still connect in
    // plaintext. Off by default, so a peer cannot dodge a host's PSK by claiming its NQN over a
    // plain connection (fabrics_cmd.cpp).
    bool allow_plaintext_psk_hosts = false;

    bool lists(const std::string &nqn) const;
};

} // namespace skiff::nvmeof::target
