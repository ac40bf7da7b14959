// Sizes the target advertises and preallocates for. One place, so Identify, CAP, ICResp and
// the transports' buffers agree.
#pragma once

#include <cstdint>

namespace skiff::nvmeof::target {

struct Limits {
    uint16_t max_queue_depth = 128;      // CAP.MQES + 1 for I/O queues
    uint16_t max_admin_queue_depth = 32; // Linux uses 32 (sqsize 31)
    uint16_t max_io_queues = 64;         // granted by Set Features Number of Queues
    uint32_t max_transfer = 128 * 1024;  // MDTS in bytes (CAP.MPSMIN is 4 KiB)
    uint32_t in_capsule_data = 8192;     // IOCCSZ = (64 + this) / 16; admin gets the same
    uint16_t aer_limit = 4;              // AERL + 1
    uint32_t discovery_kato_ms = 120000; // used when a discovery host sends KATO 0 (as nvmet)
    // NVMe/RDMA: receive capsules in the shared receive queue of each (poll group, device);
    // 0: every connection posts its own ring of receives.
    uint32_t rdma_srq_depth = 0;
    // NVMe/TCP: a read of at least this many bytes from a namespace that can lend its memory
    // (RAM) is sent from there, without a copy into the request's buffer; 0: always copy.
    uint32_t tcp_zero_copy_read_min = 32 * 1024;
    // Hostile clients (nvmeof/TARGET.md, "Hostile clients"). A connection that has not completed
    // Connect, or stopped in the middle of a PDU, and sends nothing for this long is closed.
    uint32_t stall_timeout_ms = 10000;
    // Connections at once, target-wide and per peer address (closed right after accept when
    // over), and queues (admin + I/O) per host NQN (refused at Connect). 0: no limit.
    uint32_t max_connections = 0;
    uint32_t max_connections_per_host = 0;
    uint32_t max_queues_per_host = 0;
    // A queue whose host must authenticate (DH-HMAC-CHAP) and has not succeeded this long after
    // its Connect is closed, as nvmet does: an unauthenticated peer cannot hold a controller or
    // a connection for ever. 0: no limit (not recommended).
    uint32_t auth_timeout_ms = 10000;
};

// MDTS as Identify reports it: log2(max_transfer / 4096).
uint8_t mdts_field(const Limits &limits);

// The in-capsule data a command may carry, as every transport enforces it and Identify (IOCCSZ)
// advertises it: in_capsule_data, but never more than max_transfer. NVMe/TCP receives in-capsule
// data into the request's buffer of max_transfer bytes, and no command may move more than MDTS
// anyway; the configuration loader refuses a larger in_capsule_data_size, this bound holds for
// every other way a Limits is made.
uint32_t in_capsule_limit(const Limits &limits);

} // namespace skiff::nvmeof::target
