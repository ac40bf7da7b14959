// Fabrics Connect on one queue, and turning an NVMe completion into a skiff::Status.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include <array>
#include <cstdint>
#include <string>

namespace skiff::nvmeof::host {

// Who the host is: sent in every Connect; the I/O queues must repeat what the admin queue sent.
struct HostIdentity {
    std::string hostnqn;
    std::array<uint8_t, 16> hostid{};

    // A fresh identity: hostid a random UUID, hostnqn "nqn.2014-08.org.nvmexpress:uuid:<it>".
    static HostIdentity generate();
};

std::string uuid_string(const std::array<uint8_t, 16> &uuid);

// Sends Fabrics Connect on the queue (QID and SQ size from its config) and returns the raw
// completion: status 0 with CNTLID in DW0 bits 15:0, or the controller's refusal.
Result<Completion> fabrics_connect(TcpQueue &queue, const HostIdentity &host, const std::string &subnqn,
                                   uint16_t cntlid, uint32_t kato_ms, bool disable_sq_flow_control = false);

// Ok for a successful completion; otherwise an error naming `what` and the decoded status.
// Statuses map to DOCA codes a caller can branch on: Connect Invalid Host -> NOT_PERMITTED,
// Invalid Opcode -> NOT_SUPPORTED, Invalid Field / LBA Out of Range -> INVALID_VALUE,
// anything else -> IO_FAILED.
Status to_status(const Completion &completion, const std::string &what, bool fabrics = false);

} // namespace skiff::nvmeof::host
