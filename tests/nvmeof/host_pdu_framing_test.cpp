// Host-side NVMe/TCP framing: ICReq contents, ICResp validation, PDU placement, header checks.
#include "skiff/nvmeof/host/pdu_framing.hpp"

#include "skiff/nvmeof/crc32c.hpp"

#include <gtest/gtest.h>

using namespace skiff::nvmeof::host;
using skiff::Result;
using skiff::Status;
using namespace skiff::nvmeof::wire::tcp;

namespace {
IcResp good_resp() {
    IcResp r{};
    r.ch.type = kIcResp;
    r.ch.hlen = 128;
    r.ch.plen = 128;
    r.maxh2cdata = 131072;
    r.dgst = kDgstHeader | kDgstData;
    r.cpda = 0;
    return r;
}
} // namespace

TEST(HostPduFraming, IcReqCarriesDigestsAlignmentAndMaxR2t) {
    IcReq req = make_ic_req(true, false, 3, 7);
    EXPECT_EQ(req.ch.type, kIcReq);
    EXPECT_EQ(req.ch.hlen, 128);
    EXPECT_EQ(req.ch.plen, 128u);
    EXPECT_EQ(req.pfv, 0);
    EXPECT_EQ(req.hpda, 3);
    EXPECT_EQ(req.dgst, kDgstHeader);
    EXPECT_EQ(req.maxr2t, 7u);
}

TEST(HostPduFraming, IcRespDigestsOnlyWhenBothSidesAgree) {
    IcResp r = good_resp();
    r.cpda = 3;
    Result<TcpParams> p = parse_ic_resp(r, true, false);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_TRUE(p->header_digest);
    EXPECT_FALSE(p->data_digest);
    EXPECT_EQ(p->cpda_align, 16u);
    EXPECT_EQ(p->maxh2cdata, 131072u);

    r.dgst = 0;
    p = parse_ic_resp(r, true, true);
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE(p->header_digest);
    EXPECT_FALSE(p->data_digest);
}

TEST(HostPduFraming, IcRespBadFieldsAreNamed) {
    IcResp r = good_resp();
    r.pfv = 1;
    Result<TcpParams> p = parse_ic_resp(r, false, false);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, DOCA_ERROR_UNSUPPORTED_VERSION);
    EXPECT_NE(p.error().message.find("PFV"), std::string::npos);

    r = good_resp();
    r.maxh2cdata = 4094;
    p = parse_ic_resp(r, false, false);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("MAXH2CDATA is 4094"), std::string::npos);

    r = good_resp();
    r.ch.type = kC2HTermReq;
    p = parse_ic_resp(r, false, false);
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.error().message.find("expected an ICResp"), std::string::npos);
}

TEST(HostPduFraming, FrameWithoutDataHasNoPdo) {
    TcpParams p;
    p.header_digest = true;
    PduFrame f = frame_pdu(72, 0, p);
    EXPECT_EQ(f.header_len, 76u);
    EXPECT_EQ(f.pdo, 0);
    EXPECT_EQ(f.plen, 76u);
    EXPECT_EQ(f.flags, kFlagHdgst);
}

TEST(HostPduFraming, FrameWithDataAlignsPdoAndAddsDataDigest) {
    TcpParams p;
    p.header_digest = true;
    p.data_digest = true;
    p.cpda_align = 32; // CPDA 7
    PduFrame f = frame_pdu(72, 1000, p);
    EXPECT_EQ(f.header_len, 76u);
    EXPECT_EQ(f.pdo, 96);
    EXPECT_EQ(f.pad, 20u);
    EXPECT_EQ(f.plen, 96u + 1000u + 4u);
    EXPECT_EQ(f.flags, kFlagHdgst | kFlagDdgst);

    TcpParams plain; // 4-byte alignment, no digests: data right after the header
    f = frame_pdu(24, 4096, plain);
    EXPECT_EQ(f.pdo, 24);
    EXPECT_EQ(f.pad, 0u);
    EXPECT_EQ(f.plen, 24u + 4096u);
}

TEST(HostPduFraming, IncomingHeaderChecks) {
    TcpParams p;
    CommonHeader ch{kCapsuleResp, 0, 24, 0, 24};
    EXPECT_TRUE(check_incoming_header(ch, p, 1 << 20).ok());

    ch.hlen = 72;
    Status st = check_incoming_header(ch, p, 1 << 20);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("HLEN 72, must be 24"), std::string::npos);

    CommonHeader cmd{kCapsuleCmd, 0, 72, 0, 72};
    st = check_incoming_header(cmd, p, 1 << 20);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("PDU type 4"), std::string::npos);

    p.header_digest = true;
    CommonHeader resp{kCapsuleResp, 0, 24, 0, 24};
    st = check_incoming_header(resp, p, 1 << 20);
    ASSERT_FALSE(st.ok()) << "PLEN 24 leaves no room for the negotiated header digest";
    resp = {kCapsuleResp, kFlagHdgst, 24, 0, 28};
    EXPECT_TRUE(check_incoming_header(resp, p, 1 << 20).ok());

    CommonHeader data{kC2HData, kFlagHdgst, 24, 24, 28 + 512};
    st = check_incoming_header(data, p, 1 << 20);
    ASSERT_FALSE(st.ok()) << "PDO inside the header digest";
    EXPECT_NE(st.error().message.find("PDO 24"), std::string::npos);
}

TEST(HostPduFraming, HeaderDigestIsCrc32cOfTheHeader) {
    CapsuleCmd c{};
    c.ch.type = kCapsuleCmd;
    c.sqe.opcode = 0x02;
    EXPECT_EQ(header_digest(&c, sizeof(c)), skiff::nvmeof::crc32c(&c, sizeof(c)));
}

TEST(HostPduFraming, TermReqIsDescribedByName) {
    TermReq t{};
    t.ch.type = kC2HTermReq;
    t.fes = kFesHeaderDigestError;
    EXPECT_EQ(describe_term_req(t), "C2HTermReq: FES 03h (Header Digest Error), FEI 0x0");
}
