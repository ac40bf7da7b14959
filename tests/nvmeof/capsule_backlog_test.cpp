// NVMe/RDMA command capsules that wait for a free request slot (CapsuleBacklog), and how their
// in-capsule data is planned when they are started later: a capsule's byte count of 64 KiB and
// more must come back whole, or plan_sgl would take the wrapped count as the data that followed
// the SQE (issue 36: a Get Log Page with an in-capsule SGL then zeroed memory past the capsule).
#include "skiff/nvmeof/rdma/capsule_backlog.hpp"
#include "skiff/nvmeof/rdma/rdma_sgl.hpp"
#include "skiff/nvmeof/wire/sgl.hpp"

#include <gtest/gtest.h>
#include <nvme/types.h>

namespace skiff::nvmeof::rdma {
namespace {

constexpr uint32_t kSqe = 64;

wire::Sqe in_capsule_sgl(uint64_t offset, uint32_t len) {
    wire::Sqe cmd{};
    cmd.flags = wire::kPsdtSgl;
    cmd.dptr.addr = offset;
    cmd.dptr.length = len;
    cmd.dptr.id = wire::kSglIdInCapsule;
    return cmd;
}

uint8_t sc(const SglPlan &p) {
    return static_cast<uint8_t>((p.status >> 1) & 0xFF);
}

TEST(CapsuleBacklog, LargeCapsulesComeBackWithTheirWholeLength) {
    CapsuleBacklog backlog(4);
    const uint32_t lens[] = {kSqe + 65536, kSqe + (1u << 20), kSqe + 65472, kSqe};
    for (uint16_t i = 0; i < 4; ++i) backlog.push({static_cast<uint16_t>(10 + i), lens[i]});
    EXPECT_TRUE(backlog.full());
    for (uint16_t i = 0; i < 4; ++i) {
        CapsuleBacklog::Capsule c = backlog.pop();
        EXPECT_EQ(c.recv, 10 + i);
        EXPECT_EQ(c.byte_len, lens[i]);
    }
    EXPECT_TRUE(backlog.empty());
}

TEST(CapsuleBacklog, IsAFifoAcrossItsWrapPoint) {
    CapsuleBacklog backlog(3);
    uint16_t next_in = 0, next_out = 0;
    for (int round = 0; round < 10; ++round) {
        while (!backlog.full()) backlog.push({next_in, 70000u + next_in}), ++next_in;
        for (int k = 0; k < 2; ++k) {
            CapsuleBacklog::Capsule c = backlog.pop();
            EXPECT_EQ(c.recv, next_out);
            EXPECT_EQ(c.byte_len, 70000u + next_out);
            ++next_out;
        }
    }
    EXPECT_EQ(backlog.size(), 1u);
}

// A capsule of 64 + 65536 bytes (in_capsule_data_size 64 KiB) queued, replayed, planned: an SGL
// inside what arrived is used in place, one past it refused. With the count cut to 16 bits the
// replay saw 64 bytes, and `byte_len - 64` had wrapped in earlier versions.
TEST(CapsuleBacklog, ReplayedCapsulePlansOnlyTheBytesThatArrived) {
    constexpr uint32_t kMdts = 128 * 1024;
    CapsuleBacklog backlog(2);
    backlog.push({7, kSqe + 65536});
    backlog.push({8, kSqe + 512});
    CapsuleBacklog::Capsule big = backlog.pop(), small = backlog.pop();

    SglPlan ok = plan_sgl(in_capsule_sgl(4096, 61440), big.byte_len - kSqe, kMdts);
    ASSERT_EQ(ok.status, 0);
    EXPECT_EQ(ok.kind, SglPlan::kInCapsule);
    EXPECT_EQ(ok.offset + ok.length, 65536u);
    EXPECT_EQ(sc(plan_sgl(in_capsule_sgl(4096, 61441), big.byte_len - kSqe, kMdts)),
              NVME_SC_SGL_INVALID_DATA);
    EXPECT_EQ(sc(plan_sgl(in_capsule_sgl(1024, 16), small.byte_len - kSqe, kMdts)),
              NVME_SC_SGL_INVALID_OFFSET);
}

// In-capsule data is bounded by MDTS too: a capsule larger than max_transfer (a configuration
// the loader now refuses, or limits made in code) cannot carry a command moving more than MDTS.
TEST(CapsuleBacklog, InCapsuleDataLongerThanMdtsIsInvalidData) {
    EXPECT_EQ(sc(plan_sgl(in_capsule_sgl(0, 8192), 65536, 4096)), NVME_SC_SGL_INVALID_DATA);
    EXPECT_EQ(plan_sgl(in_capsule_sgl(0, 4096), 65536, 4096).status, 0);
}

} // namespace
} // namespace skiff::nvmeof::rdma
