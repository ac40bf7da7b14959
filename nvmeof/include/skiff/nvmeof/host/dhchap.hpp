// The host side of DH-HMAC-CHAP in-band authentication: after a Connect whose response asks
// for it (AUTHREQ.ATR), each queue runs one transaction (Negotiate, Challenge, Reply,
// Success1, and Success2 when the host also authenticates the controller). Also the raw
// Authentication Send / Receive, for tests that speak the protocol themselves.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/auth/bytes.hpp"
#include "skiff/nvmeof/host/fabrics.hpp"
#include "skiff/nvmeof/host/tcp_queue.hpp"
#include "skiff/nvmeof/tls/psk.hpp"

#include <optional>

#include <string>
#include <vector>

namespace skiff::nvmeof::host {

struct DhchapOptions {
    std::string secret;            // "DHHC-1:..." host secret; empty: the host does not authenticate
    std::string ctrl_secret;       // "DHHC-1:..." controller secret; set: bidirectional
    std::vector<uint8_t> hashes;   // offered hash ids (auth::kHash*); empty: all three
    std::vector<uint8_t> dhgroups; // offered DH group ids (auth::kDh*); empty: all six
    // Secure channel concatenation (nvme connect --concat): the admin queue's authentication asks
    // for a new TLS PSK (SC_C NEWTLSPSK without TLS, REPLACETLSPSK on TLS) and always sends C2.
    bool concat = false;

    bool enabled() const { return !secret.empty(); }
};

// What one successful transaction chose.
struct DhchapResult {
    uint8_t hash = 0;
    uint8_t dh_group = 0;
    bool bidirectional = false;
    // With concatenation: the identity "NVMe1G<hh> <hostnqn> <subnqn> <digest>" and TLS PSK this
    // authentication generated (tls/generated_psk.hpp; the session key as the Linux host keys it).
    std::optional<tls::SessionPsk> generated_tls;
};

// Runs one DH-HMAC-CHAP transaction with `transaction` as its id; `tls`: the queue runs TLS
// (concatenation then replaces its PSK). An error names the step and
// the reason (the controller's AUTH_Failure1 explanation, or the controller's response not
// matching the controller secret, after which AUTH_Failure2 is sent).
Result<DhchapResult> dhchap_authenticate(TcpQueue &queue, const HostIdentity &host, const std::string &subnqn,
                                         const DhchapOptions &options, uint16_t transaction,
                                         bool tls = false);

// Authentication Send of `message`; the completion as the controller gave it.
Result<Completion> auth_send(TcpQueue &queue, auth::ByteView message);
// Authentication Receive of up to `al` bytes; the bytes, or an error carrying the NVMe status.
Result<auth::Bytes> auth_receive(TcpQueue &queue, uint32_t al);

} // namespace skiff::nvmeof::host
