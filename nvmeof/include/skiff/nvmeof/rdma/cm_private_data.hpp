// NVMe/RDMA connection establishment (NVMe-oF RDMA transport binding): the RDMA-CM private
// data a host sends with its connect request, what the target answers in its accept or reject,
// and the checks that decide between the two. Pure functions: unit-tested without RDMA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::rdma {

// Connect request private data (32 bytes, little-endian fields).
struct __attribute__((packed)) CmRequest {
    uint16_t recfmt;  // record format, 0
    uint16_t qid;     // 0 = admin queue
    uint16_t hrqsize; // host receive queue size (responses the host can take)
    uint16_t hsqsize; // host send queue size, 0's based (commands the host may send)
    uint16_t cntlid;  // the controller the host expects (0xFFFF / 0 for the dynamic model)
    uint8_t rsvd[22];
};
static_assert(sizeof(CmRequest) == 32);

// Accept private data (32 bytes).
struct __attribute__((packed)) CmAccept {
    uint16_t recfmt;
    uint16_t crqsize; // controller receive queue size: receives the target keeps posted
    uint8_t rsvd[28];
};
static_assert(sizeof(CmAccept) == 32);

// Reject private data.
struct __attribute__((packed)) CmReject {
    uint16_t recfmt;
    uint16_t sts;
};
static_assert(sizeof(CmReject) == 4);

// Reject status codes (STS).
enum CmRejectStatus : uint16_t {
    kRejectInvalidLength = 0x01,  // private data too short
    kRejectInvalidRecfmt = 0x02,  // record format not 0
    kRejectInvalidQid = 0x03,     // queue id above what the target grants
    kRejectInvalidHsqsize = 0x04, // host send queue size out of range
    kRejectInvalidHrqsize = 0x05, // host receive queue size out of range
    kRejectNoResources = 0x06,    // the device cannot hold a queue this deep
    kRejectInvalidIrd = 0x07,     // inbound RDMA read depth unusable
    kRejectInvalidOrd = 0x08,     // outbound RDMA read depth unusable
};

const char *to_string(CmRejectStatus status);

// What the target can offer one queue.
struct CmLimits {
    uint16_t max_io_queues = 64;   // highest I/O QID
    uint16_t max_admin_depth = 32; // entries of an admin queue
    uint16_t max_io_depth = 128;   // entries of an I/O queue
    uint32_t device_max_wr = 0;    // min(max_qp_wr, max_cqe / 3[, SRQ depth]): receives/sends per queue
};

// The outcome of checking a connect request: accept with `depth` or reject with `status`.
struct CmDecision {
    uint16_t status = 0; // 0 = accept
    uint16_t qid = 0;
    uint16_t depth = 0; // queue entries: receives posted and request slots (CRQSIZE)
    uint16_t cntlid = 0;
    const char *why = ""; // for the log when rejected
    bool accepted() const { return status == 0; }
};

// Checks the private data and the RDMA read depths of a connect request.
// `initiator_depth` is how many RDMA READs the target may have outstanding towards the host
// (the event's initiator_depth: the host's responder resources); 0 leaves the target unable to
// fetch host data, so the host is rejected. `responder_resources` (reads the host would issue
// to us) is tolerated whatever its value: NVMe/RDMA hosts never read target memory.
CmDecision check_connect(const void *private_data, size_t len, uint8_t initiator_depth,
                         const CmLimits &limits);

// The accept and reject private data for a decision.
CmAccept make_accept(const CmDecision &decision);
CmReject make_reject(uint16_t status);

} // namespace skiff::nvmeof::rdma
