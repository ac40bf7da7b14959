// How an NVMe/RDMA command's data moves, decided from its SGL descriptor: in the capsule
// (offset data block), or by RDMA READ / WRITE against the host's keyed data block (with the
// key to invalidate in the response when the host asks). Pure: unit-tested without RDMA.
#pragma once

#include "skiff/nvmeof/wire/command.hpp"

#include <cstdint>

namespace skiff::nvmeof::rdma {

struct SglPlan {
    enum Kind : uint8_t { kNone, kInCapsule, kKeyed };
    uint16_t status = 0; // NVMe status (wire::Status layout) when the SGL is unusable
    Kind kind = kNone;
    uint32_t length = 0;      // bytes the command transfers (data_len)
    uint32_t offset = 0;      // in-capsule: where the data starts after the 64-byte SQE
    uint64_t remote_addr = 0; // keyed: the host buffer
    uint32_t rkey = 0;
    bool invalidate = false; // keyed 0x4F: answer with SEND with invalidate of rkey
};

// Checks cmd's DPTR. `in_capsule_len` is how many bytes followed the SQE in the receive;
// `max_transfer` is the MDTS in bytes.
SglPlan plan_sgl(const wire::Sqe &cmd, uint32_t in_capsule_len, uint32_t max_transfer);

} // namespace skiff::nvmeof::rdma
