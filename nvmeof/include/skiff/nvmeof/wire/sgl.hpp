// SGL descriptors (16 bytes) as carried in a command's DPTR.
#pragma once

#include <cstdint>

namespace skiff::nvmeof::wire {

// Byte 15 of a descriptor: type in the upper nibble, subtype in the lower.
enum SglType : uint8_t {
    kSglDataBlock = 0x0,
    kSglBitBucket = 0x1,
    kSglSegment = 0x2,
    kSglLastSegment = 0x3,
    kSglKeyedDataBlock = 0x4,
    kSglTransportDataBlock = 0x5,
};

enum SglSubtype : uint8_t {
    kSglSubAddress = 0x0,
    kSglSubOffset = 0x1,
    kSglSubTransport = 0xA,
    kSglSubInvalidateKey = 0xF,
};

constexpr uint8_t sgl_id(SglType type, SglSubtype sub) {
    return static_cast<uint8_t>((type << 4) | sub);
}

// Common identifiers: in-capsule data (TCP and RDMA), TCP transport data block, RDMA keyed.
constexpr uint8_t kSglIdInCapsule = sgl_id(kSglDataBlock, kSglSubOffset);                   // 0x01
constexpr uint8_t kSglIdTcpTransport = sgl_id(kSglTransportDataBlock, kSglSubTransport);    // 0x5A
constexpr uint8_t kSglIdKeyed = sgl_id(kSglKeyedDataBlock, kSglSubAddress);                 // 0x40
constexpr uint8_t kSglIdKeyedInvalidate = sgl_id(kSglKeyedDataBlock, kSglSubInvalidateKey); // 0x4F

struct __attribute__((packed)) SglDescriptor {
    uint64_t addr;   // address, or offset into in-capsule data
    uint32_t length; // byte count (unkeyed forms)
    uint8_t rsvd[3];
    uint8_t id; // type << 4 | subtype

    SglType type() const { return static_cast<SglType>(id >> 4); }
    SglSubtype subtype() const { return static_cast<SglSubtype>(id & 0xF); }
};
static_assert(sizeof(SglDescriptor) == 16);

// Keyed data block (RDMA): 64-bit address, 24-bit length, 32-bit key.
struct __attribute__((packed)) KeyedSglDescriptor {
    uint64_t addr;
    uint8_t length[3]; // little-endian 24-bit
    uint32_t key;
    uint8_t id;

    uint32_t len() const { return length[0] | (length[1] << 8) | (static_cast<uint32_t>(length[2]) << 16); }
    void set_len(uint32_t l) {
        length[0] = l & 0xFF;
        length[1] = (l >> 8) & 0xFF;
        length[2] = (l >> 16) & 0xFF;
    }
};
static_assert(sizeof(KeyedSglDescriptor) == 16);

} // namespace skiff::nvmeof::wire
