// NVMe/RDMA command capsules that wait for a free request slot (CapsuleBacklog): a capsule's byte
// count of 64 KiB and more must come back whole, or plan_sgl would take the wrapped count as the
// data that followed the SQE (issue 36: a Get Log Page with an in-capsule SGL then zeroed memory
// past the capsule). How a replayed capsule is planned: rdma_sgl_test.cpp.
#include "skiff/nvmeof/rdma/capsule_backlog.hpp"

#include <gtest/gtest.h>

namespace skiff::nvmeof::rdma {
namespace {

constexpr uint32_t kSqe = 64;

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

} // namespace
} // namespace skiff::nvmeof::rdma
