// Internal: one preallocated command slot of a TCP queue pair. The request moves through named
// states (SPDK's shape); each transition is one function in tcp_queue_pair.cpp.
#pragma once

#include "skiff/nvmeof/target/request.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <cstdint>

namespace skiff::nvmeof::tcp {

struct SendItem;

enum class TcpRequestState : uint8_t {
    kFree,
    kReceivingInCapsule, // the capsule's data is arriving after its header
    kWaitingH2C,         // R2T queued: waiting for H2CData PDUs
    kReceivingH2C,       // an H2CData PDU's payload is arriving
    kExecuting,          // in the command layer (includes parked AERs and fused halves)
    kSending,            // C2HData / CapsuleResp queued, slot freed once sent
};

const char *to_string(TcpRequestState state);

struct TcpRequest : target::Request {
    uint16_t ttag = 0; // slot index, the R2T transfer tag
    TcpRequestState state = TcpRequestState::kFree;
    bool prepared = false;     // prepare() accepted the command
    bool digest_error = false; // a data digest did not match
    uint32_t h2c_received = 0; // bytes of host data received so far
    uint32_t ddgst = 0;        // data digest sent after C2H data
    // A large read sent straight from a RAM namespace: the held view, and the queued C2HData
    // item whose data points into it (while the view is held).
    target::HeldView view;
    SendItem *data_item = nullptr;
    // Outgoing PDU headers (+ header digest), owned by the slot so sends need no allocation.
    alignas(8) uint8_t r2t_pdu[sizeof(wire::tcp::R2T) + 4];
    alignas(8) uint8_t c2h_pdu[sizeof(wire::tcp::DataPdu) + 4];
    alignas(8) uint8_t resp_pdu[sizeof(wire::tcp::CapsuleResp) + 4];
};

} // namespace skiff::nvmeof::tcp
