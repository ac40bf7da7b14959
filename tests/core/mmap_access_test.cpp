// The engines' path to local memory (core/src/mem/mem_access.hpp): range, state and permission
// checks with their exact errors.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "../../core/src/mem/mem_access.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

class MmapAccess : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    }
    void TearDown() override { EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS); }
    std::vector<uint8_t> memory = std::vector<uint8_t>(1024, 0x42);
    doca_mmap *mmap = nullptr;
};

} // namespace

TEST_F(MmapAccess, NotStartedIsBadState) {
    uint8_t b = 0;
    EXPECT_EQ(skiff::core::mmap_read(mmap, memory.data(), &b, 1), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::mmap_read(mmap, memory.data(), &b, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::mmap_write(mmap, memory.data(), &b, 1), DOCA_ERROR_BAD_STATE);
}

TEST_F(MmapAccess, OutOfRangeIsInvalidValue) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    uint8_t b[8] = {};
    EXPECT_EQ(skiff::core::mmap_read(mmap, memory.data() + 1020, b, 8), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(skiff::core::mmap_write(mmap, memory.data() - 1, b, 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(skiff::core::mmap_cpu_ptr(mmap, memory.data() + 1020, 8), nullptr);
    EXPECT_EQ(skiff::core::mmap_cpu_ptr(mmap, memory.data() + 1016, 8), memory.data() + 1016);
}

TEST_F(MmapAccess, LocalReadOnlyMmapRefusesEngineWrites) {
    ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_FALSE(skiff::core::mmap_engine_writable(mmap));
    EXPECT_FALSE(skiff::core::mmap_is_imported(mmap));
    uint8_t b = 0x99;
    EXPECT_EQ(skiff::core::mmap_write(mmap, memory.data(), &b, 1), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(memory[0], 0x42);
    EXPECT_EQ(skiff::core::mmap_read(mmap, memory.data(), &b, 1), DOCA_SUCCESS);
    EXPECT_EQ(b, 0x42);
}

TEST_F(MmapAccess, BufMmapNamesTheMmapOfEveryListElement) {
    doca_mmap *other = nullptr;
    std::vector<uint8_t> more(256);
    ASSERT_EQ(doca_mmap_create(&other), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(other, more.data(), more.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(other), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, mmap, memory.data(), 10, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, other, more.data(), 10, &b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::buf_mmap(a), mmap);
    EXPECT_EQ(skiff::core::buf_mmap(b), other);
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(other), DOCA_SUCCESS);
}
