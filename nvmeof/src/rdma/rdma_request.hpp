// Internal: one preallocated command slot of an RDMA queue pair, moving through named states;
// each transition is one function in rdma_queue_pair.cpp.
#pragma once

#include "skiff/nvmeof/rdma/rdma_sgl.hpp"
#include "skiff/nvmeof/target/request.hpp"

#include <cstdint>

namespace skiff::nvmeof::rdma {

enum class RdmaRequestState : uint8_t {
    kFree,
    kReadingHostData, // RDMA READ of the host's keyed block posted
    kExecuting,       // in the command layer (includes parked AERs and fused halves)
    kSending,         // RDMA WRITE (if any) + response SEND posted; free at the SEND completion
};

const char *to_string(RdmaRequestState state);

struct RdmaRequest : target::Request {
    uint16_t index = 0; // slot index (work request ids, response buffer)
    uint16_t recv = 0;  // the receive buffer holding this command's capsule
    RdmaRequestState state = RdmaRequestState::kFree;
    bool prepared = false;
    SglPlan sgl;
};

} // namespace skiff::nvmeof::rdma
