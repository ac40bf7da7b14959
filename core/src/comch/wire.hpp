// The frames on an emulated channel. The transport is a SOCK_SEQPACKET socket, so every frame is
// one datagram: a small header, then (for data) the application's message. The handshake tells
// each side the other's largest message, so that a sender never exceeds what the peer receives.
#pragma once

#include <cstdint>

namespace skiff::core::comch {

enum class FrameType : uint8_t {
    hello = 1,   // client -> server, first frame: version and max message size
    welcome = 2, // server -> client: accepted, with the server's max message size
    refuse = 3,  // server -> client: not accepted (reason), then the server closes
    data = 4,    // either way: one application message follows the header
    // Data path (doca_comch_consumer): a consumer of the sending side came or went; max_msg_size
    // carries its id. The receiving side raises its new- / expired-consumer event.
    consumer_new = 5,
    consumer_expired = 6,
    // Exporter -> importer (comch_trust.hpp, send_export_files): the PCI export descriptor follows
    // the header, its files ride along as SCM_RIGHTS (segment, liveness page, then the shared-memory
    // file when there is one). max_msg_size carries the number of files.
    export_files = 7,
};

// At most this many descriptors ride along with one frame (an export's three files).
constexpr int kMaxFrameFds = 3;

enum class RefuseReason : uint8_t {
    too_many_clients = 1,
    bad_version = 2,
    not_permitted = 3, // the client's uid is not one the server admits (SO_PEERCRED)
};

constexpr uint32_t kWireMagic = 0x736b6363; // "skcc"
constexpr uint16_t kWireVersion = 1;

struct FrameHeader {
    uint32_t magic = kWireMagic;
    FrameType type = FrameType::data;
    uint8_t reason = 0; // RefuseReason for refuse frames
    uint16_t version = kWireVersion;
    uint32_t max_msg_size = 0; // hello / welcome
};
static_assert(sizeof(FrameHeader) == 12);

} // namespace skiff::core::comch
