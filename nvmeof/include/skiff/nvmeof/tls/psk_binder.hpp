// The PSK binder of a TLS 1.3 ClientHello (RFC 8446, 4.2.11.2), checked against a candidate
// TLS PSK before OpenSSL is handed one. A Linux host's TLS PSK may come from either HkdfLabel
// layout (PskDerivation, psk.hpp); the identity is the same for both, only the binder tells
// which key the host holds. OpenSSL checks the binder of the key it is given and fails the
// handshake on a mismatch, so the target picks the key whose binder verifies first.
#pragma once

#include "skiff/nvmeof/tls/psk.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace skiff::nvmeof::tls {

// Where one identity's binder sits in a ClientHello handshake message (4-byte header
// included): the binder, and how many leading bytes it covers (the message up to the binders
// list). Empty when the message is not a well-formed ClientHello whose last extension is
// pre_shared_key with at least index + 1 binders.
struct ClientHelloBinder {
    size_t covered = 0;
    std::vector<uint8_t> binder;
};
std::optional<ClientHelloBinder> client_hello_binder(const std::vector<uint8_t> &client_hello, size_t index);

// Whether `b` is the binder an external PSK `tls_psk` (hash: its cipher suite's) gives over
// the first b.covered bytes of `client_hello`.
bool binder_matches(PskHash hash, const KeyBytes &tls_psk, const std::vector<uint8_t> &client_hello,
                    const ClientHelloBinder &b);

} // namespace skiff::nvmeof::tls
