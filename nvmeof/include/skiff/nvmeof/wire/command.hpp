// Submission and completion queue entries (64 and 16 bytes), and the fabrics command layouts.
// Spec structures with their own definitions in libnvme (identify, log pages, discovery log
// entries, status codes, opcodes) come from <nvme/types.h>; this file holds only what it lacks.
#pragma once

#include "skiff/nvmeof/wire/sgl.hpp"

#include <cstdint>
#include <cstring>

namespace skiff::nvmeof::wire {

constexpr uint8_t kFabricsOpcode = 0x7F;

// Byte 1 of CDW0.
enum CmdFlags : uint8_t {
    kFuseMask = 0x03, // 0 normal, 1 first of fused, 2 second of fused
    kPsdtMask = 0xC0, // 0 PRP, 1/2 SGL
    kPsdtSgl = 0x40,
};

struct __attribute__((packed)) Sqe {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint32_t nsid;
    uint32_t cdw2;
    uint32_t cdw3;
    uint64_t mptr;
    SglDescriptor dptr;
    uint32_t cdw10;
    uint32_t cdw11;
    uint32_t cdw12;
    uint32_t cdw13;
    uint32_t cdw14;
    uint32_t cdw15;

    uint8_t fuse() const { return flags & kFuseMask; }
    const KeyedSglDescriptor &keyed_sgl() const {
        return *reinterpret_cast<const KeyedSglDescriptor *>(&dptr);
    }
    // Starting LBA of Read/Write/Compare/Write Zeroes (CDW10-11).
    uint64_t slba() const { return cdw10 | (static_cast<uint64_t>(cdw11) << 32); }
    // Number of logical blocks, 0's based (CDW12 bits 15:0).
    uint32_t nlb() const { return (cdw12 & 0xFFFF) + 1u; }
};
static_assert(sizeof(Sqe) == 64);

// Completion status field (upper 16 bits of CQE DW3): P | SC<<1 | SCT<<9 | CRD<<12 | M<<14 | DNR<<15.
struct Status {
    static constexpr uint16_t make(uint8_t sct, uint8_t sc, bool dnr = false) {
        return static_cast<uint16_t>((sc << 1) | ((sct & 0x7) << 9) | (dnr ? 0x8000 : 0));
    }
    static constexpr uint8_t sct(uint16_t status) { return (status >> 9) & 0x7; }
    static constexpr uint8_t sc(uint16_t status) { return (status >> 1) & 0xFF; }
    static constexpr bool dnr(uint16_t status) { return status & 0x8000; }
};

struct __attribute__((packed)) Cqe {
    uint64_t result; // DW0-1: command specific
    uint16_t sq_head;
    uint16_t sq_id;
    uint16_t cid;
    uint16_t status; // phase bit 0, then the status field
};
static_assert(sizeof(Cqe) == 16);

// Fabrics command types (byte 4 of a fabrics command).
enum FabricsType : uint8_t {
    kFctPropertySet = 0x00,
    kFctConnect = 0x01,
    kFctPropertyGet = 0x04,
    kFctAuthSend = 0x05,
    kFctAuthReceive = 0x06,
    kFctDisconnect = 0x08,
};

struct __attribute__((packed)) FabricsCmd {
    uint8_t opcode; // 0x7F
    uint8_t flags;
    uint16_t cid;
    uint8_t fctype;
    uint8_t rsvd1[19];
    SglDescriptor dptr;
    uint8_t specific[24];
};
static_assert(sizeof(FabricsCmd) == 64);

struct __attribute__((packed)) ConnectCmd {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint8_t fctype;
    uint8_t rsvd1[19];
    SglDescriptor dptr;
    uint16_t recfmt;
    uint16_t qid;
    uint16_t sqsize; // 0's based
    uint8_t cattr;
    uint8_t rsvd2;
    uint32_t kato; // milliseconds
    uint8_t rsvd3[12];
};
static_assert(sizeof(ConnectCmd) == 64);

// Connect data (1024 bytes) is libnvme's struct nvmf_connect_data.

// Connect response DW0: CNTLID in bits 15:0 on success; IATTR/IPO on "invalid parameters".
struct __attribute__((packed)) PropertyCmd {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint8_t fctype;
    uint8_t rsvd1[35];
    uint8_t attrib; // bits 2:0 size: 0 = 4 bytes, 1 = 8 bytes
    uint8_t rsvd2[3];
    uint32_t offset;
    uint64_t value; // Property Set only
    uint8_t rsvd3[8];
};
static_assert(sizeof(PropertyCmd) == 64);

// Fabrics command specific status codes (SCT 1).
enum FabricsStatus : uint8_t {
    kFscIncompatibleFormat = 0x80,
    kFscControllerBusy = 0x81,
    kFscInvalidParam = 0x82,
    kFscRestartDiscovery = 0x83,
    kFscInvalidHost = 0x84,
};

// Controller properties (offsets into the register map).
enum Property : uint32_t {
    kPropCap = 0x00,
    kPropVs = 0x08,
    kPropCc = 0x14,
    kPropCsts = 0x1C,
    kPropNssr = 0x20,
};

template <typename T>
inline const T &view_as(const Sqe &sqe) {
    static_assert(sizeof(T) == sizeof(Sqe));
    return *reinterpret_cast<const T *>(&sqe);
}

} // namespace skiff::nvmeof::wire
