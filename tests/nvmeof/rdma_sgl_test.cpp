// NVMe/RDMA SGL handling: keyed data blocks (with and without invalidate), in-capsule offset
// descriptors, and the statuses of descriptors the transport cannot use.
#include "skiff/nvmeof/rdma/capsule_backlog.hpp"
#include "skiff/nvmeof/rdma/rdma_sgl.hpp"
#include "skiff/nvmeof/wire/sgl.hpp"

#include <gtest/gtest.h>
#include <nvme/types.h>

#include <cstring>

namespace skiff::nvmeof::rdma {
namespace {

constexpr uint32_t kMdts = 128 * 1024;
constexpr uint32_t kSqeLen = 64;

wire::Sqe keyed(uint64_t addr, uint32_t len, uint32_t key, uint8_t id = wire::kSglIdKeyed) {
    wire::Sqe cmd{};
    cmd.flags = wire::kPsdtSgl;
    wire::KeyedSglDescriptor k{};
    k.addr = addr;
    k.set_len(len);
    k.key = key;
    k.id = id;
    std::memcpy(&cmd.dptr, &k, sizeof(k));
    return cmd;
}

// A Write: in-capsule data is for commands whose data goes to the controller.
wire::Sqe in_capsule(uint64_t offset, uint32_t len) {
    wire::Sqe cmd{};
    cmd.opcode = 0x01;
    cmd.flags = wire::kPsdtSgl;
    cmd.dptr.addr = offset;
    cmd.dptr.length = len;
    cmd.dptr.id = wire::kSglIdInCapsule;
    return cmd;
}

uint8_t sc(const SglPlan &p) {
    return static_cast<uint8_t>((p.status >> 1) & 0xFF);
}

TEST(RdmaSgl, KeyedBlockGivesAddressKeyAndTheFull24BitLength) {
    SglPlan p = plan_sgl(keyed(0x1122334455667788ull, 0x20000, 0xA1B2C3D4), 0, kMdts);
    ASSERT_EQ(p.status, 0);
    EXPECT_EQ(p.kind, SglPlan::kKeyed);
    EXPECT_EQ(p.length, 0x20000u);
    EXPECT_EQ(p.remote_addr, 0x1122334455667788ull);
    EXPECT_EQ(p.rkey, 0xA1B2C3D4u);
    EXPECT_FALSE(p.invalidate);
}

TEST(RdmaSgl, InvalidateSubtypeAsksForSendWithInvalidate) {
    SglPlan p = plan_sgl(keyed(0x1000, 4096, 0x77, wire::kSglIdKeyedInvalidate), 0, kMdts);
    ASSERT_EQ(p.status, 0);
    EXPECT_TRUE(p.invalidate);
    EXPECT_EQ(p.rkey, 0x77u);
}

TEST(RdmaSgl, ZeroLengthKeyedBlockMeansNoData) {
    // Linux sends this for commands without data (flush, admin commands without a buffer).
    SglPlan p = plan_sgl(keyed(0, 0, 0), 0, kMdts);
    ASSERT_EQ(p.status, 0);
    EXPECT_EQ(p.kind, SglPlan::kNone);
    EXPECT_EQ(p.length, 0u);
    EXPECT_FALSE(plan_sgl(keyed(0, 0, 5, wire::kSglIdKeyedInvalidate), 0, kMdts).invalidate);
}

TEST(RdmaSgl, KeyedBlockLongerThanMdtsIsInvalidData) {
    EXPECT_EQ(sc(plan_sgl(keyed(0x1000, kMdts, 1), 0, kMdts)), 0);
    EXPECT_EQ(sc(plan_sgl(keyed(0x1000, kMdts + 1, 1), 0, kMdts)), NVME_SC_SGL_INVALID_DATA);
    // A keyed command must not carry data in its capsule too.
    EXPECT_EQ(sc(plan_sgl(keyed(0x1000, 512, 1), 512, kMdts)), NVME_SC_SGL_INVALID_DATA);
}

TEST(RdmaSgl, InCapsuleOffsetDescriptorPointsIntoTheCapsule) {
    SglPlan p = plan_sgl(in_capsule(0, 4096), 4096, kMdts);
    ASSERT_EQ(p.status, 0);
    EXPECT_EQ(p.kind, SglPlan::kInCapsule);
    EXPECT_EQ(p.offset, 0u);
    EXPECT_EQ(p.length, 4096u);
    p = plan_sgl(in_capsule(512, 1024), 2048, kMdts);
    ASSERT_EQ(p.status, 0);
    EXPECT_EQ(p.offset, 512u);
    EXPECT_EQ(p.length, 1024u);
}

TEST(RdmaSgl, InCapsuleDescriptorsOutsideTheCapsuleAreRejected) {
    EXPECT_EQ(sc(plan_sgl(in_capsule(4097, 0), 4096, kMdts)), NVME_SC_SGL_INVALID_OFFSET);
    EXPECT_EQ(sc(plan_sgl(in_capsule(0, 8192), 4096, kMdts)), NVME_SC_SGL_INVALID_DATA);
    EXPECT_EQ(sc(plan_sgl(in_capsule(1024, 4096), 4096, kMdts)), NVME_SC_SGL_INVALID_DATA);
}

TEST(RdmaSgl, OtherDescriptorsAndPrpsGetTheirStatus) {
    wire::Sqe tcp = in_capsule(0, 0);
    tcp.dptr.id = wire::kSglIdTcpTransport;
    EXPECT_EQ(sc(plan_sgl(tcp, 0, kMdts)), NVME_SC_SGL_INVALID_TYPE);
    wire::Sqe seg = in_capsule(0, 16);
    seg.dptr.id = wire::sgl_id(wire::kSglLastSegment, wire::kSglSubOffset);
    EXPECT_EQ(sc(plan_sgl(seg, 16, kMdts)), NVME_SC_SGL_INVALID_TYPE);
    wire::Sqe prp = keyed(0x1000, 4096, 1);
    prp.flags = 0;
    SglPlan p = plan_sgl(prp, 0, kMdts);
    EXPECT_EQ(sc(p), NVME_SC_INVALID_FIELD);
    EXPECT_TRUE(p.status & 0x8000) << "do not retry";
}

// A capsule of 64 + 65536 bytes (in_capsule_data_size 64 KiB) queued, replayed, planned: an SGL
// inside what arrived is used in place, one past it refused. With the count cut to 16 bits the
// replay saw 64 bytes, and `byte_len - 64` had wrapped in earlier versions.
TEST(RdmaSgl, ReplayedCapsulePlansOnlyTheBytesThatArrived) {
    CapsuleBacklog backlog(2);
    backlog.push({7, kSqeLen + 65536});
    backlog.push({8, kSqeLen + 512});
    CapsuleBacklog::Capsule big = backlog.pop(), small = backlog.pop();

    SglPlan ok = plan_sgl(in_capsule(4096, 61440), big.byte_len - kSqeLen, kMdts);
    ASSERT_EQ(ok.status, 0);
    EXPECT_EQ(ok.kind, SglPlan::kInCapsule);
    EXPECT_EQ(ok.offset + ok.length, 65536u);
    EXPECT_EQ(sc(plan_sgl(in_capsule(4096, 61441), big.byte_len - kSqeLen, kMdts)), NVME_SC_SGL_INVALID_DATA);
    EXPECT_EQ(sc(plan_sgl(in_capsule(1024, 16), small.byte_len - kSqeLen, kMdts)),
              NVME_SC_SGL_INVALID_OFFSET);
}

// In-capsule data is bounded by MDTS too: a capsule larger than max_transfer (a configuration
// the loader now refuses, or limits made in code) cannot carry a command moving more than MDTS.
TEST(RdmaSgl, InCapsuleDataLongerThanMdtsIsInvalidData) {
    EXPECT_EQ(sc(plan_sgl(in_capsule(0, 8192), 65536, 4096)), NVME_SC_SGL_INVALID_DATA);
    EXPECT_EQ(plan_sgl(in_capsule(0, 4096), 65536, 4096).status, 0);
}

TEST(RdmaSgl, InCapsuleDataForACommandThatReadsIsInvalidField) {
    wire::Sqe read = in_capsule(0, 512);
    read.opcode = 0x02;
    EXPECT_EQ(sc(plan_sgl(read, 512, 1u << 20)), NVME_SC_INVALID_FIELD);
    wire::Sqe none = in_capsule(0, 0); // no data at all: nothing travels the wrong way
    none.opcode = 0x02;
    EXPECT_EQ(plan_sgl(none, 0, 1u << 20).status, 0);
}

} // namespace
} // namespace skiff::nvmeof::rdma

