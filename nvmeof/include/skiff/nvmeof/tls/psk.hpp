// NVMe/TCP pre-shared keys (NVMe/TCP transport specification, "Transport Layer Security"; TP
// 8011): the configured PSK in its interchange form ("NVMeTLSkey-1:01:<base64 key+CRC32>:",
// what `nvme gen-tls-key` prints), the retained PSK derived from it for one host, the TLS PSK
// identity "NVMe0R0<h> <hostnqn> <subnqn>" and the TLS PSK derived for that identity, which is
// what both TLS 1.3 endpoints finally use as their external PSK.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/auth/bytes.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::nvmeof::tls {

// The hash indicator of the interchange format and of the PSK identity. For a configured PSK,
// kNone means "use the key as the retained PSK" (no transform).
enum class PskHash : uint8_t { kNone = 0, kSha256 = 1, kSha384 = 2 };

// Every key below (configured, retained, TLS PSK) lives in wiped-when-freed memory.
using auth::KeyBytes;

struct ConfiguredPsk {
    PskHash hash = PskHash::kNone;
    KeyBytes key; // 32 or 48 bytes

    // The hash that derives the TLS PSK and picks the cipher suite: the indicator, or for
    // kNone the one whose output length is the key's (32: SHA-256, 48: SHA-384).
    PskHash cipher_hash() const;
};

// Parses "NVMeTLSkey-1:HH:<base64>:" (HH 00, 01 or 02); the base64 text holds the key and its
// CRC-32 (little endian), which must match. Errors say what is wrong, never the key.
Result<ConfiguredPsk> parse_interchange(std::string_view text);
// The interchange form of a key (tests and tools; the target never prints keys).
std::string format_interchange(const ConfiguredPsk &psk);

// How the two HKDF-Expand-Label steps below lay out their HkdfLabel. The NVMe/TCP specification
// points at RFC 8446: the length big endian, the label and the context each preceded by its
// length byte. libnvme up to 1.15 (nvme-cli up to 2.15: Debian 13, RHEL 9 and 10, Ubuntu 24.04)
// wrote the length in host order (little endian on x86 and Arm) and left both length bytes out;
// libnvme 1.16 fixed that and kept the old layout as "--compat". The Linux host and target take
// the TLS PSK that nvme-cli inserted in the keyring, so a Linux host sends the binder of
// whichever layout its nvme-cli used. The target tells the two apart by the binder
// (tls_session.cpp), so both kinds of host connect with the same configured key.
enum class PskDerivation : uint8_t { kRfc8446, kNvmeCliLegacy };
const char *derivation_name(PskDerivation d);

// Retained PSK = HKDF-Expand-Label(HKDF-Extract(0, configured), "HostNQN", hostnqn, len).
KeyBytes retained_psk(const ConfiguredPsk &psk, std::string_view hostnqn,
                      PskDerivation d = PskDerivation::kRfc8446);

// "NVMe0R0<h> <hostnqn> <subnqn>" (identity format version 0, retained PSK).
std::string psk_identity(PskHash hash, std::string_view hostnqn, std::string_view subnqn);

// TLS PSK = HKDF-Expand-Label(HKDF-Extract(0, retained), "nvme-tls-psk", context, len) with the
// identity's hash; context is the identity for version 0 and "<hh> <digest>" for version 1.
KeyBytes tls_psk(PskHash hash, const KeyBytes &retained, std::string_view context,
                 PskDerivation d = PskDerivation::kRfc8446);

// Version 1 identities carry a digest: base64(HMAC(retained, "<hostnqn> <subnqn> NVMe-over-Fabrics")).
std::string identity_digest(PskHash hash, const KeyBytes &retained, std::string_view hostnqn,
                            std::string_view subnqn);

// A PSK identity as a host offers it: "NVMe<v>R<hh> <hostnqn> <subnqn>[ <digest>]".
struct PskIdentity {
    int version = 0;
    PskHash hash = PskHash::kSha256;
    std::string hostnqn, subnqn, digest;
};
std::optional<PskIdentity> parse_identity(std::string_view text);

// Everything one TLS connection needs from a configured key: the identity the host offers
// and the TLS PSK both sides derive for it (identity version 0).
struct SessionPsk {
    std::string identity;
    PskHash hash = PskHash::kSha256;
    KeyBytes key;
};
SessionPsk session_psk(const ConfiguredPsk &psk, std::string_view hostnqn, std::string_view subnqn,
                       PskDerivation d = PskDerivation::kRfc8446);

} // namespace skiff::nvmeof::tls
