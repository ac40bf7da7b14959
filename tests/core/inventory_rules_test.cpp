// doca_buf_inventory (spec 5.4 rules 25 and 26).
#include "buf_mem_fixture.hpp"

using InventoryRules = skiff::test::LocalMemory;

TEST_F(InventoryRules, Rule25_StoppedOrNeverStartedInventoryRejectsAllocation) {
    doca_buf_inventory *fresh = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &fresh), DOCA_SUCCESS);
    doca_buf *b = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(fresh, mmap, at(0), 16, &b), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_buf_inventory_start(fresh), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_stop(fresh), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(fresh, mmap, at(0), 16, &b), DOCA_ERROR_BAD_STATE);
    // Stop and start may be repeated.
    ASSERT_EQ(doca_buf_inventory_start(fresh), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(fresh, mmap, at(0), 16, &b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(fresh), DOCA_SUCCESS);
}

TEST_F(InventoryRules, Rule25_EmptyInventoryIsNoMemoryAndNeverGrows) {
    doca_buf *bufs[kInventorySize];
    for (auto &b : bufs) b = get(0, 16);
    EXPECT_EQ(free_elements(), 0u);
    doca_buf *extra = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, at(0), 16, &extra), DOCA_ERROR_NO_MEMORY);
    uint32_t total = 0;
    ASSERT_EQ(doca_buf_inventory_get_num_elements(inv, &total), DOCA_SUCCESS);
    EXPECT_EQ(total, kInventorySize);
    for (auto *b : bufs) EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(InventoryRules, Rule25_DestroyOrStopWithOutstandingBufsIsInUse) {
    doca_buf *b = get(0, 16);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_buf_inventory_stop(inv), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(InventoryRules, Rule25_CreateWithZeroElementsIsInvalidValue) {
    doca_buf_inventory *zero = nullptr;
    EXPECT_EQ(doca_buf_inventory_create(0, &zero), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(InventoryRules, UserDataOnlyBeforeStart) {
    EXPECT_EQ(doca_buf_inventory_set_user_data(inv, doca_data{.u64 = 7}), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_buf_inventory_stop(inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_set_user_data(inv, doca_data{.u64 = 7}), DOCA_SUCCESS);
    doca_data d{};
    ASSERT_EQ(doca_buf_inventory_get_user_data(inv, &d), DOCA_SUCCESS);
    EXPECT_EQ(d.u64, 7u);
}

TEST_F(InventoryRules, Rule26_DupCopiesTheDescriptorWithItsOwnRefcount) {
    doca_buf *src = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, at(100), 200, at(150), 50, &src), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inc_refcount(src, nullptr), DOCA_SUCCESS);
    doca_buf *copy = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_dup(inv, src, &copy), DOCA_SUCCESS);
    ASSERT_NE(copy, src);
    void *head = nullptr, *data = nullptr;
    size_t len = 0, data_len = 0;
    uint16_t rc = 0;
    ASSERT_EQ(doca_buf_get_head(copy, &head), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_get_len(copy, &len), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_get_data(copy, &data), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_get_data_len(copy, &data_len), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_get_refcount(copy, &rc), DOCA_SUCCESS);
    EXPECT_EQ(head, at(100));
    EXPECT_EQ(len, 200u);
    EXPECT_EQ(data, at(150));
    EXPECT_EQ(data_len, 50u);
    EXPECT_EQ(rc, 1);
    EXPECT_EQ(mmap_bufs(), 2u);
    EXPECT_EQ(doca_buf_dec_refcount(copy, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(src, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(src, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(mmap_bufs(), 0u);
}

TEST_F(InventoryRules, Rule26_DupOfAListCopiesEveryElement) {
    doca_buf *a = get(0, 64), *b = get(64, 64);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_dup(inv, b, &b), DOCA_ERROR_NOT_PERMITTED); // not a head
    doca_buf *copy = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_dup(inv, a, &copy), DOCA_SUCCESS);
    uint32_t n = 0;
    ASSERT_EQ(doca_buf_get_list_len(copy, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(mmap_bufs(), 4u);
    EXPECT_EQ(doca_buf_dec_refcount(copy, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(InventoryRules, Rule26_DupNeedsStartedObjectsAndRoom) {
    doca_buf *src = get(0, 64);
    doca_buf_inventory *small = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(1, &small), DOCA_SUCCESS);
    doca_buf *copy = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_dup(small, src, &copy), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_buf_inventory_start(small), DOCA_SUCCESS);
    doca_buf *tail = get(64, 64);
    ASSERT_EQ(doca_buf_chain_list(src, tail), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_dup(small, src, &copy), DOCA_ERROR_NO_MEMORY); // 2 elements, room for 1
    uint32_t free_small = 0;
    ASSERT_EQ(doca_buf_inventory_get_num_free_elements(small, &free_small), DOCA_SUCCESS);
    EXPECT_EQ(free_small, 1u); // all or nothing
    EXPECT_EQ(doca_buf_dec_refcount(src, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(small), DOCA_SUCCESS);
}
