// Secure channel concatenation (NVMe Base Specification 2.1, "Generated PSK for TLS"; TP 8018):
// a host that authenticates its admin queue with DH-HMAC-CHAP and asks for a new TLS PSK
// (AUTH_Negotiate SC_C = NEWTLSPSK) reconnects over TLS with a key both sides derive from that
// authentication, so no PSK is ever configured:
//   generated PSK = HMAC-H(KS, C1 || C2)              H: the hash chosen in the Challenge
//   digest        = base64(HMAC-H(generated PSK, "<hostnqn> <subnqn> NVMe-over-Fabrics"))
//   identity      = "NVMe1G<hh> <hostnqn> <subnqn> <digest>"
//   TLS PSK       = HKDF-Expand-Label(HKDF-Extract(0, generated PSK), "nvme-tls-psk",
//                                     "<hh> <digest>", hash length)
// The generated PSK takes the place of the retained PSK of a configured key (psk.hpp): digest
// and TLS PSK are the same functions.
#pragma once

#include "skiff/nvmeof/auth/bytes.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace skiff::nvmeof::tls {

// The PSK hash of a DH-HMAC-CHAP hash id: SHA-256 and SHA-384 only (TLS 1.3's two NVMe/TCP
// cipher suites); SHA-512 authenticates but cannot key a secure channel.
std::optional<PskHash> concat_hash(uint8_t dhchap_hash_id);

// HMAC-H(session_key, c1 || c2). Which session key: the Linux host and target key the HMAC with
// the DH shared value g^xy itself (drivers/nvme/common/auth.c, nvme_auth_generate_psk), where
// the specification's KS reads as H(g^xy). Both give the same PSK: HMAC first hashes a key longer
// than the hash's block (RFC 2104), and g^xy of ffdhe2048 and up is 256 bytes or more against
// SHA-256's 64-byte and SHA-384's 128-byte blocks (tls_psk_test checks it).
KeyBytes generated_psk(PskHash hash, auth::ByteView session_key, auth::ByteView c1, auth::ByteView c2);

// "NVMe1G<hh> <hostnqn> <subnqn> <digest>".
std::string generated_identity(PskHash hash, std::string_view hostnqn, std::string_view subnqn,
                               std::string_view digest);
// The HKDF context of a version-1 identity: "<hh> <digest>".
std::string identity_context(PskHash hash, std::string_view digest);

} // namespace skiff::nvmeof::tls
