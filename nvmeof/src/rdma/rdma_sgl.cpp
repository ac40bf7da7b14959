#include "skiff/nvmeof/rdma/rdma_sgl.hpp"

#include "skiff/nvmeof/wire/data_direction.hpp"
#include "skiff/nvmeof/wire/sgl.hpp"

#include <nvme/types.h>

#include <cstring>

namespace skiff::nvmeof::rdma {

SglPlan plan_sgl(const wire::Sqe &cmd, uint32_t in_capsule_len, uint32_t max_transfer) {
    using wire::Status;
    SglPlan plan;
    auto bad = [&](uint8_t sc) {
        plan.status = Status::make(NVME_SCT_GENERIC, sc, true);
        return plan;
    };
    if ((cmd.flags & wire::kPsdtMask) != wire::kPsdtSgl) return bad(NVME_SC_INVALID_FIELD);
    const wire::SglDescriptor &sgl = cmd.dptr;
    if (sgl.id == wire::kSglIdInCapsule) {
        // Offset data block: the data sits in this capsule, `addr` bytes after the SQE.
        if (sgl.addr > in_capsule_len) return bad(NVME_SC_SGL_INVALID_OFFSET);
        if (sgl.length > in_capsule_len - sgl.addr) return bad(NVME_SC_SGL_INVALID_DATA);
        // No command moves more than MDTS, wherever its data travels.
        if (sgl.length > max_transfer) return bad(NVME_SC_SGL_INVALID_DATA);
        // Data sent to the host never sits in the capsule (as nvmet answers it: Invalid Field).
        if (sgl.length != 0 && !wire::moves_data_to_controller(cmd)) return bad(NVME_SC_INVALID_FIELD);
        plan.kind = sgl.length ? SglPlan::kInCapsule : SglPlan::kNone;
        plan.offset = static_cast<uint32_t>(sgl.addr);
        plan.length = sgl.length;
        return plan;
    }
    if (sgl.id == wire::kSglIdKeyed || sgl.id == wire::kSglIdKeyedInvalidate) {
        wire::KeyedSglDescriptor keyed;
        std::memcpy(&keyed, &sgl, sizeof(keyed));
        // Data for a keyed descriptor comes by RDMA; a capsule carrying data as well is malformed.
        if (in_capsule_len != 0) return bad(NVME_SC_SGL_INVALID_DATA);
        if (keyed.len() > max_transfer) return bad(NVME_SC_SGL_INVALID_DATA);
        plan.length = keyed.len();
        plan.kind = plan.length ? SglPlan::kKeyed : SglPlan::kNone;
        plan.remote_addr = keyed.addr;
        plan.rkey = keyed.key;
        // A zero-length block (commands without data) carries no key worth invalidating.
        plan.invalidate = sgl.id == wire::kSglIdKeyedInvalidate && plan.length != 0;
        return plan;
    }
    return bad(NVME_SC_SGL_INVALID_TYPE);
}

} // namespace skiff::nvmeof::rdma
