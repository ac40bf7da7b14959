// MDTS from what an RDMA device moves in one message (runs everywhere: pure arithmetic).
#include "skiff/nvmeof/rdma/rdma_limits.hpp"

#include <gtest/gtest.h>

namespace skiff::nvmeof::rdma {
namespace {

TEST(RdmaLimits, DeviceAboveTheConfiguredTransferKeepsIt) {
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 1ull << 31), 128u * 1024); // rxe, mlx5: 2 GiB
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 128 * 1024), 128u * 1024);
}

TEST(RdmaLimits, SmallerDeviceLowersItToAPowerOfTwoOfPages) {
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 64 * 1024), 64u * 1024);
    // Not a power of two of 4 KiB pages: rounded down (MDTS is log2 of pages).
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 100 * 1024), 64u * 1024);
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 4096 + 1), 4096u);
    EXPECT_EQ(max_transfer_for_device(1u << 20, 3u << 18), 512u * 1024);
}

TEST(RdmaLimits, DeviceBelowOnePageAllowsNothing) {
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 4095), 0u);
    EXPECT_EQ(max_transfer_for_device(128 * 1024, 0), 0u);
}

} // namespace
} // namespace skiff::nvmeof::rdma
