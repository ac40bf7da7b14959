// The values DH-HMAC-CHAP exchanges, computed the same way by host and controller (NVMe Base
// Specification, "DH-HMAC-CHAP protocol operations"; byte order as the Linux host and nvmet):
//
//   challenge' = C                                   (null DH group)
//              = HMAC-H(H(session key), C)            (with a DH exchange: the augmented challenge)
//   host response R1 = HMAC-H(host key', C1' || S1 || T_ID || SC_C || "HostHost"
//                                       || host NQN || 00h || subsystem NQN)
//   ctrl response R2 = HMAC-H(ctrl key', C2' || S2 || T_ID || SC_C || "Controller"
//                                       || subsystem NQN || 00h || host NQN)
//
// where key' is the transformed secret (dhchap_key.hpp), S and T_ID little endian, and SC_C the
// one byte the host's AUTH_Negotiate asked for (0 without secure channel concatenation).
#pragma once

#include "skiff/nvmeof/auth/bytes.hpp"

#include <string_view>

namespace skiff::nvmeof::auth {

// The challenge a response is computed over: C itself when session_key is empty (null group),
// else the augmented challenge.
Bytes effective_challenge(uint8_t hash, ByteView session_key, ByteView challenge);

struct ResponseInputs {
    uint8_t hash;
    ByteView key;       // the transformed secret
    ByteView challenge; // the effective challenge
    uint32_t seqnum;
    uint16_t transaction;
    std::string_view hostnqn;
    std::string_view subnqn;
    uint8_t sc_c = 0; // the transaction's SC_C: concatenation is part of what both sides sign
};

// R1: what the host proves it holds the host secret with.
Bytes host_response(const ResponseInputs &in);
// R2: what the controller proves it holds the controller secret with.
Bytes controller_response(const ResponseInputs &in);

} // namespace skiff::nvmeof::auth
