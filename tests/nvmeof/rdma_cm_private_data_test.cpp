// NVMe/RDMA connection establishment: the connect private data the target checks, the reject
// codes it answers with, and the accept it builds. Pure functions: no RDMA device needed.
#include "skiff/nvmeof/rdma/cm_private_data.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace skiff::nvmeof::rdma {
namespace {

CmRequest request(uint16_t qid, uint16_t hrqsize, uint16_t hsqsize) {
    CmRequest r{};
    r.recfmt = 0;
    r.qid = qid;
    r.hrqsize = hrqsize;
    r.hsqsize = hsqsize;
    r.cntlid = 0xFFFF;
    return r;
}

CmLimits limits() {
    return CmLimits{64, 32, 128, 4096};
}

TEST(RdmaCm, WireLayoutMatchesTheTransportBinding) {
    EXPECT_EQ(offsetof(CmRequest, recfmt), 0u);
    EXPECT_EQ(offsetof(CmRequest, qid), 2u);
    EXPECT_EQ(offsetof(CmRequest, hrqsize), 4u);
    EXPECT_EQ(offsetof(CmRequest, hsqsize), 6u);
    EXPECT_EQ(offsetof(CmRequest, cntlid), 8u);
    EXPECT_EQ(offsetof(CmAccept, crqsize), 2u);
    EXPECT_EQ(offsetof(CmReject, sts), 2u);
}

TEST(RdmaCm, LinuxHostAdminAndIoQueuesAreAcceptedWithTheirDepth) {
    // What the kernel's nvme-rdma sends: admin 32 entries, I/O 128 (HSQSIZE 0's based).
    auto admin = request(0, 32, 31);
    CmDecision d = check_connect(&admin, sizeof(admin), 16, limits());
    ASSERT_TRUE(d.accepted()) << d.why;
    EXPECT_EQ(d.qid, 0);
    EXPECT_EQ(d.depth, 32);
    EXPECT_EQ(d.cntlid, 0xFFFF);
    auto io = request(3, 128, 127);
    d = check_connect(&io, sizeof(io), 16, limits());
    ASSERT_TRUE(d.accepted()) << d.why;
    EXPECT_EQ(d.qid, 3);
    EXPECT_EQ(d.depth, 128);
    CmAccept acc = make_accept(d);
    EXPECT_EQ(acc.recfmt, 0);
    EXPECT_EQ(acc.crqsize, 128);
    for (uint8_t b : acc.rsvd) EXPECT_EQ(b, 0);
}

TEST(RdmaCm, HostsSendingOnlyTheFirstFourFieldsAreAccepted) {
    auto io = request(1, 64, 63);
    CmDecision d = check_connect(&io, 8, 1, limits());
    ASSERT_TRUE(d.accepted()) << d.why;
    EXPECT_EQ(d.depth, 64);
}

TEST(RdmaCm, EachBadFieldGetsItsRejectCode) {
    auto good = request(1, 128, 127);
    // 01h: private data too short or absent.
    EXPECT_EQ(check_connect(&good, 7, 16, limits()).status, kRejectInvalidLength);
    EXPECT_EQ(check_connect(nullptr, 0, 16, limits()).status, kRejectInvalidLength);
    // 02h: record format.
    auto r = good;
    r.recfmt = 1;
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidRecfmt);
    // 03h: QID beyond the I/O queues the target grants.
    r = request(65, 128, 127);
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidQid);
    r = request(64, 128, 127);
    EXPECT_TRUE(check_connect(&r, sizeof(r), 16, limits()).accepted());
    // 04h: HSQSIZE 0 (one entry) or deeper than the queue maximum (admin 32, I/O 128).
    r = request(1, 128, 0);
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidHsqsize);
    r = request(1, 129, 128);
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidHsqsize);
    r = request(0, 64, 63);
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidHsqsize);
    // 05h: HRQSIZE 0.
    r = request(1, 0, 127);
    EXPECT_EQ(check_connect(&r, sizeof(r), 16, limits()).status, kRejectInvalidHrqsize);
    // 06h: the device (or the shared receive queue: the transport lowers device_max_wr to its
    // depth) cannot hold that many work requests.
    CmLimits small = limits();
    small.device_max_wr = 64;
    EXPECT_EQ(check_connect(&good, sizeof(good), 16, small).status, kRejectNoResources);
    // 08h: initiator depth 0: the target could never RDMA READ the host's data.
    EXPECT_EQ(check_connect(&good, sizeof(good), 0, limits()).status, kRejectInvalidOrd);
}

TEST(RdmaCm, RejectPrivateDataCarriesTheStatus) {
    for (uint16_t sts = kRejectInvalidLength; sts <= kRejectInvalidOrd; ++sts) {
        CmReject rej = make_reject(sts);
        uint8_t bytes[sizeof(rej)];
        std::memcpy(bytes, &rej, sizeof(rej));
        EXPECT_EQ(bytes[0] | bytes[1] << 8, 0);   // RECFMT
        EXPECT_EQ(bytes[2] | bytes[3] << 8, sts); // STS, little-endian
        EXPECT_STRNE(to_string(static_cast<CmRejectStatus>(sts)), "?");
    }
}

} // namespace
} // namespace skiff::nvmeof::rdma
