// doca_buf_arr (spec 5.4 rule 28).
#include <doca_buf_array.h>
#include <doca_mmap.h>

#include "../../core/src/mem/buf_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

class BufArrayRules : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_arr_create(8, &arr), DOCA_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(doca_buf_arr_destroy(arr), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    }
    // The DPA and the GPU are only recorded as targets here; any non-NULL handle stands for one.
    doca_dpa *dpa() { return reinterpret_cast<doca_dpa *>(&dpa_stand_in); }
    doca_gpu *gpu() { return reinterpret_cast<doca_gpu *>(&gpu_stand_in); }

    std::vector<uint8_t> memory = std::vector<uint8_t>(4096);
    doca_mmap *mmap = nullptr;
    doca_buf_arr *arr = nullptr;
    int dpa_stand_in = 0, gpu_stand_in = 0;
};

} // namespace

TEST_F(BufArrayRules, CreateWithZeroElementsIsInvalidValue) {
    doca_buf_arr *zero = nullptr;
    EXPECT_EQ(doca_buf_arr_create(0, &zero), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(BufArrayRules, Rule28_StartNeedsATarget) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 256, 0), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE);
}

TEST_F(BufArrayRules, Rule28_StartNeedsAStartedMmap) {
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 256, 0), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_target_dpa(arr, dpa()), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_stop(arr), DOCA_SUCCESS);
}

TEST_F(BufArrayRules, Rule28_SecondStartIsBadStateAndSettersFreeze) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 256, 0), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_target_dpa(arr, dpa()), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_start(arr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_arr_set_target_gpu(arr, gpu()), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_arr_set_target_dpa(arr, dpa()), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_buf_arr_set_params(arr, mmap, 128, 0), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_buf_arr_stop(arr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE); // started once already
}

TEST_F(BufArrayRules, Rule28_MmapTooSmallIsNoMemory) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 512, 1), DOCA_SUCCESS); // 1 + 8 * 512 > 4096
    ASSERT_EQ(doca_buf_arr_set_target_dpa(arr, dpa()), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_start(arr), DOCA_ERROR_NO_MEMORY);
}

TEST_F(BufArrayRules, Rule28_DpaHandleIndexesElementsFromTheOffset) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 256, 1024), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_target_dpa(arr, dpa()), DOCA_SUCCESS);
    doca_dpa_dev_buf_arr_t handle = 0;
    EXPECT_EQ(doca_buf_arr_get_dpa_handle(arr, &handle), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_buf_arr_start(arr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_get_dpa_handle(arr, &handle), DOCA_SUCCESS);
    const auto *table = skiff::core::mem::buf_arr_table(handle);
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->num_elem, 8u);
    for (size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(table->elements[i].addr, memory.data() + 1024 + i * 256);
        EXPECT_EQ(table->elements[i].len, 256u);
        EXPECT_EQ(table->elements[i].mmap, mmap);
    }
    doca_gpu_buf_arr *gpu_handle = nullptr;
    EXPECT_EQ(doca_buf_arr_get_gpu_handle(arr, &gpu_handle), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(BufArrayRules, SetParamsNeedsAnMmapWithARange) {
    doca_mmap *no_range = nullptr;
    ASSERT_EQ(doca_mmap_create(&no_range), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_arr_set_params(arr, no_range, 256, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_arr_set_params(arr, mmap, 0, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_destroy(no_range), DOCA_SUCCESS);
}
