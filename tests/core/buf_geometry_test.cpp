// doca_buf geometry, refcounts and lists (spec 5.4 rules 20, 22, 23).
#include "buf_mem_fixture.hpp"

#include <cstdint>

using BufGeometry = skiff::test::LocalMemory;
using BufRefcount = skiff::test::LocalMemory;
using BufList = skiff::test::LocalMemory;

namespace {

void *data_of(doca_buf *b) {
    void *d = nullptr;
    EXPECT_EQ(doca_buf_get_data(b, &d), DOCA_SUCCESS);
    return d;
}
size_t data_len_of(doca_buf *b) {
    size_t n = 0;
    EXPECT_EQ(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
    return n;
}
uint16_t refcount_of(doca_buf *b) {
    uint16_t r = 0;
    EXPECT_EQ(doca_buf_get_refcount(b, &r), DOCA_SUCCESS);
    return r;
}

} // namespace

TEST_F(BufGeometry, Rule20_GetByAddrIsAnEmptyDestination) {
    doca_buf *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, at(128), 256, &b), DOCA_SUCCESS);
    void *head = nullptr;
    size_t len = 0;
    ASSERT_EQ(doca_buf_get_head(b, &head), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_get_len(b, &len), DOCA_SUCCESS);
    EXPECT_EQ(head, at(128));
    EXPECT_EQ(len, 256u);
    EXPECT_EQ(data_of(b), at(128));
    EXPECT_EQ(data_len_of(b), 0u);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(BufGeometry, Rule20_GetByDataIsAFullSource) {
    doca_buf *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, mmap, at(128), 256, &b), DOCA_SUCCESS);
    EXPECT_EQ(data_of(b), at(128));
    EXPECT_EQ(data_len_of(b), 256u);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(BufGeometry, Rule20_GetByArgsChecksTheDataLiesInsideTheBuffer) {
    doca_buf *b = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, at(128), 256, at(100), 10, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, at(128), 256, at(300), 100, &b),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(free_elements(), kInventorySize); // nothing was taken by the failures
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, at(128), 256, at(192), 192, &b), DOCA_SUCCESS);
    EXPECT_EQ(data_of(b), at(192));
    EXPECT_EQ(data_len_of(b), 192u);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(BufGeometry, SetDataSetDataLenAndResetKeepTheRegionInside) {
    doca_buf *b = get(0, 100);
    ASSERT_EQ(doca_buf_set_data(b, at(10), 20), DOCA_SUCCESS); // headroom 10, tailroom 70
    EXPECT_EQ(data_of(b), at(10));
    EXPECT_EQ(data_len_of(b), 20u);
    ASSERT_EQ(doca_buf_set_data_len(b, 90), DOCA_SUCCESS);
    EXPECT_EQ(data_len_of(b), 90u);
    EXPECT_EQ(doca_buf_set_data_len(b, 91), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_set_data(b, at(50), 60), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(data_len_of(b), 90u); // a refused change leaves the buffer as it was
    ASSERT_EQ(doca_buf_reset_data_len(b), DOCA_SUCCESS);
    EXPECT_EQ(data_len_of(b), 0u);
    EXPECT_EQ(data_of(b), at(10));
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
}

TEST_F(BufRefcount, Rule22_StartsAtOneAndReportsTheValueBefore) {
    doca_buf *b = get(0, 64);
    EXPECT_EQ(refcount_of(b), 1);
    uint16_t before = 0;
    ASSERT_EQ(doca_buf_inc_refcount(b, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 1);
    ASSERT_EQ(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 2);
    EXPECT_EQ(free_elements(), kInventorySize - 1);
    ASSERT_EQ(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, 1);
    // At 0 the descriptor is back in its inventory and out of the mmap's count.
    EXPECT_EQ(free_elements(), kInventorySize);
    EXPECT_EQ(mmap_bufs(), 0u);
}

TEST_F(BufRefcount, Rule22_IncPast65535IsTooBig) {
    doca_buf *b = get(0, 64);
    for (int i = 1; i < UINT16_MAX; ++i) ASSERT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(refcount_of(b), UINT16_MAX);
    EXPECT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_ERROR_TOO_BIG);
    EXPECT_EQ(refcount_of(b), UINT16_MAX);
    for (int i = 0; i < UINT16_MAX; ++i) ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(BufRefcount, Rule22_DecAtZeroIsBadState) {
    doca_buf *b = get(0, 64);
    ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    // The descriptor is back in the inventory; a stale handle still reads 0 and is refused.
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(BufRefcount, Rule22_IncDecOnANonHeadMemberIsNotPermitted) {
    doca_buf *a = get(0, 64), *b = get(64, 64);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(refcount_of(b), 1);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(BufList, Rule23_ChainWalkAndLength) {
    doca_buf *a = get(0, 64), *b = get(64, 64), *c = get(128, 64);
    ASSERT_EQ(doca_buf_chain_list(b, c), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    doca_buf *next = nullptr;
    ASSERT_EQ(doca_buf_get_next_in_list(a, &next), DOCA_SUCCESS);
    EXPECT_EQ(next, b);
    ASSERT_EQ(doca_buf_get_next_in_list(b, &next), DOCA_SUCCESS);
    EXPECT_EQ(next, c);
    ASSERT_EQ(doca_buf_get_next_in_list(c, &next), DOCA_SUCCESS);
    EXPECT_EQ(next, nullptr);
    doca_buf *last = nullptr;
    ASSERT_EQ(doca_buf_get_last_in_list(a, &last), DOCA_SUCCESS);
    EXPECT_EQ(last, c);
    uint32_t n = 0;
    ASSERT_EQ(doca_buf_get_list_len(a, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(doca_buf_get_list_len(b, &n), DOCA_ERROR_NOT_PERMITTED);
    uint8_t flag = 0;
    ASSERT_EQ(doca_buf_is_first_in_list(a, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 1);
    ASSERT_EQ(doca_buf_is_first_in_list(b, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 0);
    ASSERT_EQ(doca_buf_is_last_in_list(c, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 1);
    ASSERT_EQ(doca_buf_is_in_list(b, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 1);
    // Releasing the head releases the whole chain.
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
    EXPECT_EQ(mmap_bufs(), 0u);
}

TEST_F(BufList, Rule23_ChainNeedsAHeadWithRefcountOne) {
    doca_buf *a = get(0, 64), *b = get(64, 64), *c = get(128, 64);
    ASSERT_EQ(doca_buf_inc_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_chain_list(a, b), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_chain_list(c, b), DOCA_ERROR_NOT_PERMITTED); // b is no longer a head
    uint8_t in_list = 1;
    ASSERT_EQ(doca_buf_is_in_list(c, &in_list), DOCA_SUCCESS);
    EXPECT_EQ(in_list, 0);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(c, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}

TEST_F(BufList, Rule23_UnchainNeedsAMemberAndLeavesRefcountOne) {
    doca_buf *a = get(0, 64), *b = get(64, 64), *c = get(128, 64), *d = get(192, 64);
    ASSERT_EQ(doca_buf_chain_list(a, b), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(a, c), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_unchain_list(a, d), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_buf_inc_refcount(a, nullptr), DOCA_SUCCESS); // the head's count stays with list1
    ASSERT_EQ(doca_buf_unchain_list(a, b), DOCA_SUCCESS);       // detaches b and c
    EXPECT_EQ(refcount_of(b), 1);
    EXPECT_EQ(refcount_of(a), 2);
    uint32_t n = 0;
    ASSERT_EQ(doca_buf_get_list_len(a, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 1u);
    ASSERT_EQ(doca_buf_get_list_len(b, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS); // releases b and c
    EXPECT_EQ(free_elements(), kInventorySize - 2);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(d, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(free_elements(), kInventorySize);
}
