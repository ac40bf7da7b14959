// A started local mmap over 64 KiB and a started inventory, for buf / inventory / pool tests.
#pragma once

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace skiff::test {

class LocalMemory : public ::testing::Test {
  protected:
    static constexpr size_t kSize = 64 * 1024;
    static constexpr uint32_t kInventorySize = 16;

    void SetUp() override {
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_create(kInventorySize, &inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    }
    uint8_t *at(size_t off) { return memory.data() + off; }
    uint32_t free_elements() {
        uint32_t n = 0;
        EXPECT_EQ(doca_buf_inventory_get_num_free_elements(inv, &n), DOCA_SUCCESS);
        return n;
    }
    uint32_t mmap_bufs() {
        uint32_t n = 0;
        EXPECT_EQ(doca_mmap_get_num_bufs(mmap, &n), DOCA_SUCCESS);
        return n;
    }
    doca_buf *get(size_t off, size_t len) {
        doca_buf *b = nullptr;
        EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, at(off), len, &b), DOCA_SUCCESS);
        return b;
    }

    std::vector<uint8_t> memory = std::vector<uint8_t>(kSize);
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
};

} // namespace skiff::test
