// NVMe/TCP PDU headers (all little-endian on the wire; x86 and Arm64 are little-endian).
#pragma once

#include "skiff/nvmeof/wire/command.hpp"

#include <cstdint>

namespace skiff::nvmeof::wire::tcp {

enum PduType : uint8_t {
    kIcReq = 0x00,
    kIcResp = 0x01,
    kH2CTermReq = 0x02,
    kC2HTermReq = 0x03,
    kCapsuleCmd = 0x04,
    kCapsuleResp = 0x05,
    kH2CData = 0x06,
    kC2HData = 0x07,
    kR2T = 0x09,
};

enum PduFlags : uint8_t {
    kFlagHdgst = 0x01,       // header digest present
    kFlagDdgst = 0x02,       // data digest present
    kFlagDataLast = 0x04,    // last PDU of a data transfer (H2CData, C2HData)
    kFlagDataSuccess = 0x08, // C2HData: the command completed successfully, no response capsule
};

// ICReq/ICResp DGST bits.
enum DigestBits : uint8_t {
    kDgstHeader = 0x01,
    kDgstData = 0x02,
};

// Fatal error status of a TermReq.
enum TermReqFes : uint16_t {
    kFesInvalidHeaderField = 0x01,
    kFesPduSequenceError = 0x02,
    kFesHeaderDigestError = 0x03,
    kFesDataOutOfRange = 0x04,
    kFesR2TLimitExceeded = 0x05,
    kFesDataLimitExceeded = 0x05, // same code, named for C2H
    kFesUnsupportedParameter = 0x06,
};

constexpr uint8_t kDigestLen = 4;
constexpr uint32_t kTermReqMaxData = 128; // bytes of the offending header echoed back

struct __attribute__((packed)) CommonHeader {
    uint8_t type;
    uint8_t flags;
    uint8_t hlen;
    uint8_t pdo;
    uint32_t plen;
};
static_assert(sizeof(CommonHeader) == 8);

struct __attribute__((packed)) IcReq {
    CommonHeader ch;
    uint16_t pfv;
    uint8_t hpda;
    uint8_t dgst;
    uint32_t maxr2t; // 0's based
    uint8_t rsvd[112];
};
static_assert(sizeof(IcReq) == 128);

struct __attribute__((packed)) IcResp {
    CommonHeader ch;
    uint16_t pfv;
    uint8_t cpda;
    uint8_t dgst;
    uint32_t maxh2cdata;
    uint8_t rsvd[112];
};
static_assert(sizeof(IcResp) == 128);

struct __attribute__((packed)) TermReq {
    CommonHeader ch;
    uint16_t fes;
    uint32_t fei; // field error information (byte offset of the bad field, for FES 01h)
    uint8_t rsvd[10];
};
static_assert(sizeof(TermReq) == 24);

struct __attribute__((packed)) CapsuleCmd {
    CommonHeader ch;
    Sqe sqe;
};
static_assert(sizeof(CapsuleCmd) == 72);

struct __attribute__((packed)) CapsuleResp {
    CommonHeader ch;
    Cqe cqe;
};
static_assert(sizeof(CapsuleResp) == 24);

// H2CData and C2HData share one layout.
struct __attribute__((packed)) DataPdu {
    CommonHeader ch;
    uint16_t cccid;
    uint16_t ttag;
    uint32_t datao;
    uint32_t datal;
    uint8_t rsvd[4];
};
static_assert(sizeof(DataPdu) == 24);

struct __attribute__((packed)) R2T {
    CommonHeader ch;
    uint16_t cccid;
    uint16_t ttag;
    uint32_t r2to;
    uint32_t r2tl;
    uint8_t rsvd[4];
};
static_assert(sizeof(R2T) == 24);

// Header length each PDU type must carry in HLEN.
constexpr uint8_t expected_hlen(uint8_t type) {
    switch (type) {
    case kIcReq:
    case kIcResp:
        return 128;
    case kH2CTermReq:
    case kC2HTermReq:
        return 24;
    case kCapsuleCmd:
        return 72;
    case kCapsuleResp:
    case kH2CData:
    case kC2HData:
    case kR2T:
        return 24;
    default:
        return 0;
    }
}

} // namespace skiff::nvmeof::wire::tcp
