// doca_buf_pool (spec 5.4 rule 27).
#include <doca_buf.h>
#include <doca_buf_pool.h>
#include <doca_mmap.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

class PoolRules : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        // Deliberately misaligned start so that alignment padding matters.
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data() + 1, 1000), DOCA_SUCCESS);
    }
    void TearDown() override { EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS); }
    std::vector<uint8_t> memory = std::vector<uint8_t>(1024 + 64);
    doca_mmap *mmap = nullptr;
};

} // namespace

TEST_F(PoolRules, CreateValidatesItsArguments) {
    doca_buf_pool *pool = nullptr;
    EXPECT_EQ(doca_buf_pool_create(0, 10, mmap, &pool), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_pool_create(10, 0, mmap, &pool), DOCA_ERROR_INVALID_VALUE);
    doca_mmap *no_range = nullptr;
    ASSERT_EQ(doca_mmap_create(&no_range), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_create(10, 10, no_range, &pool), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_destroy(no_range), DOCA_SUCCESS);
}

TEST_F(PoolRules, Rule27_StartNeedsAStartedMmap) {
    doca_buf_pool *pool = nullptr;
    ASSERT_EQ(doca_buf_pool_create(4, 100, mmap, &pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_start(pool), DOCA_ERROR_BAD_STATE);
    doca_buf *b = nullptr;
    EXPECT_EQ(doca_buf_pool_buf_alloc(pool, &b), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_start(pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
}

TEST_F(PoolRules, Rule27_StartWithAnMmapTooSmallIsInitialization) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_pool *pool = nullptr;
    ASSERT_EQ(doca_buf_pool_create(11, 100, mmap, &pool), DOCA_SUCCESS); // 1100 > 1000
    EXPECT_EQ(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
    // 10 x 100 fit exactly without alignment, but not once each element is 64-aligned.
    ASSERT_EQ(doca_buf_pool_create(10, 100, mmap, &pool), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_set_element_alignment(pool, 64), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_start(pool), DOCA_ERROR_INITIALIZATION);
    ASSERT_EQ(doca_buf_pool_set_element_alignment(pool, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_start(pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
}

TEST_F(PoolRules, Rule27_ElementsHonourTheAlignmentAndDoNotOverlap) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_pool *pool = nullptr;
    ASSERT_EQ(doca_buf_pool_create(6, 100, mmap, &pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_set_element_alignment(pool, 48), DOCA_ERROR_INVALID_VALUE); // not a power of 2
    EXPECT_EQ(doca_buf_pool_set_element_alignment(pool, 0), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_buf_pool_set_element_alignment(pool, 128), DOCA_SUCCESS);
    size_t alignment = 0;
    ASSERT_EQ(doca_buf_pool_get_element_alignment(pool, &alignment), DOCA_SUCCESS);
    EXPECT_EQ(alignment, 128u);
    ASSERT_EQ(doca_buf_pool_start(pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_set_element_alignment(pool, 64), DOCA_ERROR_BAD_STATE);
    std::vector<doca_buf *> bufs;
    std::set<uintptr_t> heads;
    for (int i = 0; i < 6; ++i) {
        doca_buf *b = nullptr;
        ASSERT_EQ(doca_buf_pool_buf_alloc(pool, &b), DOCA_SUCCESS);
        void *head = nullptr, *data = nullptr;
        size_t len = 0, data_len = 1;
        ASSERT_EQ(doca_buf_get_head(b, &head), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_get_len(b, &len), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_get_data(b, &data), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_get_data_len(b, &data_len), DOCA_SUCCESS);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(head) % 128, 0u);
        EXPECT_EQ(len, 100u);
        EXPECT_EQ(data, head);
        EXPECT_EQ(data_len, 0u);
        EXPECT_GE(static_cast<uint8_t *>(head), memory.data() + 1);
        EXPECT_LE(static_cast<uint8_t *>(head) + len, memory.data() + 1 + 1000);
        heads.insert(reinterpret_cast<uintptr_t>(head));
        bufs.push_back(b);
    }
    EXPECT_EQ(heads.size(), 6u);
    for (auto it = heads.begin(); std::next(it) != heads.end(); ++it) EXPECT_GE(*std::next(it) - *it, 100u);
    for (doca_buf *b : bufs) EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
}

TEST_F(PoolRules, Rule27_ExhaustionIsEmptyAndReturnRefills) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_pool *pool = nullptr;
    ASSERT_EQ(doca_buf_pool_create(2, 100, mmap, &pool), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_start(pool), DOCA_SUCCESS);
    doca_buf *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(doca_buf_pool_buf_alloc(pool, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_buf_alloc(pool, &b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_buf_alloc(pool, &c), DOCA_ERROR_EMPTY);
    uint32_t n = 0;
    ASSERT_EQ(doca_buf_pool_get_num_free_elements(pool, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 0u);
    ASSERT_EQ(doca_buf_pool_get_num_elements(pool, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    void *head_a = nullptr;
    ASSERT_EQ(doca_buf_get_head(a, &head_a), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_buf_alloc(pool, &c), DOCA_SUCCESS);
    void *head_c = nullptr;
    ASSERT_EQ(doca_buf_get_head(c, &head_c), DOCA_SUCCESS);
    EXPECT_EQ(head_c, head_a); // the descriptor keeps its slice for life
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(c, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
}

TEST_F(PoolRules, Rule27_StopOrDestroyWithOutstandingBufsIsInUse) {
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_pool *pool = nullptr;
    ASSERT_EQ(doca_buf_pool_create(2, 100, mmap, &pool), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_start(pool), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_set_user_data(pool, doca_data{.u64 = 3}), DOCA_ERROR_BAD_STATE);
    doca_buf *a = nullptr;
    ASSERT_EQ(doca_buf_pool_buf_alloc(pool, &a), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_pool_stop(pool), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_ERROR_IN_USE);
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_pool_stop(pool), DOCA_SUCCESS);
    // Setters work again after stop.
    EXPECT_EQ(doca_buf_pool_set_user_data(pool, doca_data{.u64 = 3}), DOCA_SUCCESS);
    doca_data d{};
    ASSERT_EQ(doca_buf_pool_get_user_data(pool, &d), DOCA_SUCCESS);
    EXPECT_EQ(d.u64, 3u);
    EXPECT_EQ(doca_buf_pool_destroy(pool), DOCA_SUCCESS);
}
