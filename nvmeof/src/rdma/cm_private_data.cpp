#include "skiff/nvmeof/rdma/cm_private_data.hpp"

#include <algorithm>
#include <cstring>

namespace skiff::nvmeof::rdma {

const char *to_string(CmRejectStatus status) {
    switch (status) {
    case kRejectInvalidLength:
        return "invalid private data length";
    case kRejectInvalidRecfmt:
        return "invalid RECFMT";
    case kRejectInvalidQid:
        return "invalid QID";
    case kRejectInvalidHsqsize:
        return "invalid HSQSIZE";
    case kRejectInvalidHrqsize:
        return "invalid HRQSIZE";
    case kRejectNoResources:
        return "no resources";
    case kRejectInvalidIrd:
        return "invalid IRD";
    case kRejectInvalidOrd:
        return "invalid ORD";
    }
    return "?";
}

CmDecision check_connect(const void *private_data, size_t len, uint8_t initiator_depth,
                         const CmLimits &limits) {
    CmDecision d;
    auto reject = [&](uint16_t status, const char *why) {
        d.status = status;
        d.why = why;
        return d;
    };
    // The fields the spec defines end at CNTLID; older hosts send only up to HSQSIZE.
    if (private_data == nullptr || len < offsetof(CmRequest, cntlid))
        return reject(kRejectInvalidLength, "private data shorter than 8 bytes");
    CmRequest req{};
    std::memcpy(&req, private_data, std::min(len, sizeof(req)));
    d.qid = req.qid;
    d.cntlid = req.cntlid;
    if (req.recfmt != 0) return reject(kRejectInvalidRecfmt, "RECFMT is not 0");
    if (req.qid > limits.max_io_queues) return reject(kRejectInvalidQid, "QID above the I/O queues granted");
    uint32_t max_depth = req.qid == 0 ? limits.max_admin_depth : limits.max_io_depth;
    // HSQSIZE is 0's based: at least 2 entries (NVMe's minimum queue size), at most our maximum.
    uint32_t sq_entries = req.hsqsize + 1u;
    if (req.hsqsize == 0 || sq_entries > max_depth)
        return reject(kRejectInvalidHsqsize, "HSQSIZE outside 1..queue maximum - 1");
    if (req.hrqsize == 0) return reject(kRejectInvalidHrqsize, "HRQSIZE is 0");
    if (initiator_depth == 0)
        return reject(kRejectInvalidOrd, "initiator depth 0: the target could not RDMA READ host data");
    // Every command the host may send needs a posted receive and a request slot.
    if (limits.device_max_wr != 0 && sq_entries > limits.device_max_wr)
        return reject(kRejectNoResources,
                      "the RDMA device (or the shared receive queue) cannot hold a queue this deep");
    d.depth = static_cast<uint16_t>(sq_entries);
    return d;
}

CmAccept make_accept(const CmDecision &decision) {
    CmAccept a{};
    a.recfmt = 0;
    a.crqsize = decision.depth;
    return a;
}

CmReject make_reject(uint16_t status) {
    return CmReject{0, status};
}

} // namespace skiff::nvmeof::rdma
