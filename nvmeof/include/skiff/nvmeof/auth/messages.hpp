// The wire formats of in-band authentication: the Fabrics Authentication Send / Receive
// commands and the DH-HMAC-CHAP messages they carry (NVMe Base Specification, "Authentication
// Send / Receive" and "DH-HMAC-CHAP protocol"; TP 8006). All multi-byte fields little endian.
#pragma once

#include "skiff/nvmeof/wire/sgl.hpp"

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::auth {

// Security Protocol "NVMe in-band authentication" and its SP-specific fields.
constexpr uint8_t kSecpNvmeAuth = 0xE9;
constexpr uint8_t kSpsp0 = 0x01;
constexpr uint8_t kSpsp1 = 0x01;

// Connect response DW0: the controller requires authentication (ATR), or a secure channel
// concatenation (ASCR, not offered by skiff).
constexpr uint32_t kConnectAuthreqAtr = 1u << 17;
constexpr uint32_t kConnectAuthreqAscr = 1u << 18;

// Authentication Send (fctype 05h) and Receive (06h): SPSP0, SPSP1, SECP in dword 10 bits
// 15:8, 23:16, 31:24 (as Security Send); TL / AL in dword 11.
struct __attribute__((packed)) AuthCmd {
    uint8_t opcode;
    uint8_t flags;
    uint16_t cid;
    uint8_t fctype;
    uint8_t rsvd1[19];
    wire::SglDescriptor dptr;
    uint8_t rsvd2; // NSSF in Security Send; reserved here
    uint8_t spsp0;
    uint8_t spsp1;
    uint8_t secp;    // CDW10 bits 31:24
    uint32_t length; // Send: transfer length (TL); Receive: allocation length (AL)
    uint8_t rsvd3[16];
};
static_assert(sizeof(AuthCmd) == 64);

// AUTH_Type
constexpr uint8_t kTypeCommon = 0x00; // AUTH_Negotiate, AUTH_Failure1/2
constexpr uint8_t kTypeDhchap = 0x01;
// AUTH_Id
constexpr uint8_t kMsgNegotiate = 0x00;
constexpr uint8_t kMsgChallenge = 0x01;
constexpr uint8_t kMsgReply = 0x02;
constexpr uint8_t kMsgSuccess1 = 0x03;
constexpr uint8_t kMsgSuccess2 = 0x04;
constexpr uint8_t kMsgFailure2 = 0xF0;
constexpr uint8_t kMsgFailure1 = 0xF1;

// Authentication protocol id of DH-HMAC-CHAP in a protocol descriptor.
constexpr uint8_t kAuthIdDhchap = 0x01;
// AUTH_Negotiate SC_C, secure channel concatenation: none; a new TLS PSK generated from this
// authentication (admin queue without TLS); the same to replace the PSK of the TLS connection the
// admin queue runs on. (01h, "secure channel" with no new PSK, is not a value nvmet or the
// Linux host use; skiff answers it with a concatenation mismatch, as nvmet does.)
constexpr uint8_t kScNone = 0x00;
constexpr uint8_t kScNewTlsPsk = 0x02;
constexpr uint8_t kScReplaceTlsPsk = 0x03;

// AUTH_Failure reason code and its explanations.
constexpr uint8_t kReasonFailed = 0x01;
constexpr uint8_t kExplFailed = 0x01;
constexpr uint8_t kExplNotUsable = 0x02;
constexpr uint8_t kExplConcatMismatch = 0x03;
constexpr uint8_t kExplHashUnusable = 0x04;
constexpr uint8_t kExplDhgroupUnusable = 0x05;
constexpr uint8_t kExplIncorrectPayload = 0x06;
constexpr uint8_t kExplIncorrectMessage = 0x07;
// A phrase for logs ("authentication failed", "hash function not usable", ...).
const char *failure_explanation(uint8_t code);

struct __attribute__((packed)) MessageHeader {
    uint8_t auth_type;
    uint8_t auth_id;
    uint16_t rsvd;
    uint16_t t_id; // transaction id
};

struct __attribute__((packed)) ProtocolDescriptor {
    uint8_t authid;
    uint8_t rsvd;
    uint8_t halen; // hash ids in idlist[0..29]
    uint8_t dhlen; // DH group ids in idlist[30..59]
    uint8_t idlist[60];
};
constexpr size_t kDhgroupListOffset = 30;
constexpr size_t kMaxIds = 30;

struct __attribute__((packed)) NegotiateMessage {
    MessageHeader hdr;
    uint8_t sc_c;
    uint8_t napd; // protocol descriptors that follow
    ProtocolDescriptor protocols[1];
};
static_assert(sizeof(NegotiateMessage) == 72);

// Followed by cval[hl] and the controller's DH value dhv[dhvlen].
struct __attribute__((packed)) ChallengeMessage {
    MessageHeader hdr;
    uint8_t hl;
    uint8_t rsvd;
    uint8_t hashid;
    uint8_t dhgid;
    uint16_t dhvlen;
    uint32_t seqnum;
};
static_assert(sizeof(ChallengeMessage) == 16);

// Followed by rval[hl], cval[hl] (meaningful when cvalid) and the host's DH value dhv[dhvlen].
struct __attribute__((packed)) ReplyMessage {
    MessageHeader hdr;
    uint8_t hl;
    uint8_t rsvd1;
    uint8_t cvalid;
    uint8_t rsvd2;
    uint16_t dhvlen;
    uint32_t seqnum; // the host's S2 (0: no controller authentication)
};
static_assert(sizeof(ReplyMessage) == 16);

// Followed by rval[hl] (meaningful when rvalid).
struct __attribute__((packed)) Success1Message {
    MessageHeader hdr;
    uint8_t hl;
    uint8_t rsvd1;
    uint8_t rvalid;
    uint8_t rsvd2[7];
};
static_assert(sizeof(Success1Message) == 16);

struct __attribute__((packed)) Success2Message {
    MessageHeader hdr;
    uint8_t rsvd[10];
};
static_assert(sizeof(Success2Message) == 16);

struct __attribute__((packed)) FailureMessage {
    MessageHeader hdr;
    uint8_t rescode;
    uint8_t rescode_exp;
};
static_assert(sizeof(FailureMessage) == 8);

// AUTH_Failure1 (controller to host) or AUTH_Failure2 (host to controller): reason "failed" with
// the given explanation, in transaction tid.
inline FailureMessage make_failure(uint8_t auth_id, uint16_t tid, uint8_t explanation) {
    FailureMessage f{};
    f.hdr.auth_type = kTypeCommon;
    f.hdr.auth_id = auth_id;
    f.hdr.t_id = tid;
    f.rescode = kReasonFailed;
    f.rescode_exp = explanation;
    return f;
}

} // namespace skiff::nvmeof::auth
