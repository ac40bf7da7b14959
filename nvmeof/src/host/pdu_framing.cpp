#include "skiff/nvmeof/host/pdu_framing.hpp"

#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <cstdio>
#include <cstring>

namespace skiff::nvmeof::host {

using namespace wire::tcp;

IcReq make_ic_req(bool header_digest, bool data_digest, uint8_t hpda, uint32_t maxr2t) {
    IcReq req{};
    req.ch.type = kIcReq;
    req.ch.hlen = sizeof(IcReq);
    req.ch.plen = sizeof(IcReq);
    req.pfv = 0;
    req.hpda = hpda;
    req.dgst = static_cast<uint8_t>((header_digest ? kDgstHeader : 0) | (data_digest ? kDgstData : 0));
    req.maxr2t = maxr2t;
    return req;
}

Result<TcpParams> parse_ic_resp(const IcResp &resp, bool want_header_digest, bool want_data_digest) {
    if (resp.ch.type != kIcResp)
        return make_error(DOCA_ERROR_UNEXPECTED,
                          "expected an ICResp (PDU type 01h) after the ICReq, got type " +
                              std::to_string(resp.ch.type));
    if (resp.ch.hlen != sizeof(IcResp) || resp.ch.plen != sizeof(IcResp))
        return make_error(DOCA_ERROR_UNEXPECTED, "ICResp has HLEN " + std::to_string(resp.ch.hlen) +
                                                     " PLEN " + std::to_string(resp.ch.plen) +
                                                     ", both must be 128");
    if (resp.pfv != 0)
        return make_error(DOCA_ERROR_UNSUPPORTED_VERSION,
                          "ICResp PFV is " + std::to_string(resp.pfv) + ", only version 0 exists");
    if (resp.maxh2cdata < 4096 || resp.maxh2cdata % 4 != 0)
        return make_error(DOCA_ERROR_UNEXPECTED, "ICResp MAXH2CDATA is " + std::to_string(resp.maxh2cdata) +
                                                     ", must be a multiple of 4 and at least 4096");
    if (resp.cpda > 31)
        return make_error(DOCA_ERROR_UNEXPECTED,
                          "ICResp CPDA is " + std::to_string(resp.cpda) + ", must be 0..31");
    TcpParams p;
    p.header_digest = want_header_digest && (resp.dgst & kDgstHeader);
    p.data_digest = want_data_digest && (resp.dgst & kDgstData);
    p.cpda_align = (resp.cpda + 1u) * 4u;
    p.maxh2cdata = resp.maxh2cdata;
    return p;
}

PduFrame frame_pdu(uint8_t hlen, uint32_t data_len, const TcpParams &params) {
    PduFrame f;
    f.header_len = hlen + (params.header_digest ? kDigestLen : 0u);
    if (params.header_digest) f.flags |= kFlagHdgst;
    if (data_len == 0) {
        f.plen = f.header_len;
        return f;
    }
    const uint32_t align = params.cpda_align ? params.cpda_align : 4;
    const uint32_t pdo = (f.header_len + align - 1) / align * align;
    f.pad = pdo - f.header_len;
    f.pdo = static_cast<uint8_t>(pdo);
    f.plen = pdo + data_len + (params.data_digest ? kDigestLen : 0u);
    if (params.data_digest) f.flags |= kFlagDdgst;
    return f;
}

void fill_common_header(CommonHeader &ch, uint8_t type, uint8_t hlen, const PduFrame &frame) {
    ch.type = type;
    ch.flags |= frame.flags;
    ch.hlen = hlen;
    ch.pdo = frame.pdo;
    ch.plen = frame.plen;
}

uint32_t header_digest(const void *header, uint8_t hlen) {
    return crc32c(header, hlen);
}

Status check_incoming_header(const CommonHeader &ch, const TcpParams &params, uint32_t max_plen) {
    switch (ch.type) {
    case kC2HTermReq:
    case kCapsuleResp:
    case kC2HData:
    case kR2T:
        break;
    default:
        return make_error(DOCA_ERROR_UNEXPECTED, "target sent PDU type " + std::to_string(ch.type) +
                                                     ", a host only accepts 03h, 05h, 07h and 09h");
    }
    if (ch.hlen != expected_hlen(ch.type))
        return make_error(DOCA_ERROR_UNEXPECTED, "PDU type " + std::to_string(ch.type) + " has HLEN " +
                                                     std::to_string(ch.hlen) + ", must be " +
                                                     std::to_string(expected_hlen(ch.type)));
    // A TermReq carries no digest; any other PDU carries one when it was negotiated.
    const bool hdgst = ch.type != kC2HTermReq && params.header_digest;
    const uint32_t header_len = ch.hlen + (hdgst ? kDigestLen : 0u);
    if (ch.plen < header_len || ch.plen > max_plen)
        return make_error(DOCA_ERROR_UNEXPECTED,
                          "PDU type " + std::to_string(ch.type) + " has PLEN " + std::to_string(ch.plen) +
                              ", must be " + std::to_string(header_len) + ".." + std::to_string(max_plen));
    if (ch.type == kC2HData && ch.pdo < header_len)
        return make_error(DOCA_ERROR_UNEXPECTED,
                          "C2HData PDO " + std::to_string(ch.pdo) +
                              " points into the header, must be >= " + std::to_string(header_len));
    if (hdgst && !(ch.flags & kFlagHdgst))
        return make_error(DOCA_ERROR_UNEXPECTED, "PDU type " + std::to_string(ch.type) +
                                                     " lacks HDGSTF although header digests were negotiated");
    return Status::success();
}

std::string describe_term_req(const TermReq &req) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s: FES %02Xh (%s), FEI 0x%x",
                  req.ch.type == kC2HTermReq ? "C2HTermReq" : "H2CTermReq", req.fes,
                  term_req_fes_name(req.fes), req.fei);
    return buf;
}

} // namespace skiff::nvmeof::host
