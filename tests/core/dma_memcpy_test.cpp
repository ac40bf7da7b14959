// DMA memcpy semantics (spec 5.6 items 42, 44): buffer geometry, linked lists, limits,
// permissions, capabilities and configuration errors.
#include "dma_support.hpp"

#include <doca_buf.h>
#include <doca_dma.h>
#include <doca_mmap.h>

#include <gtest/gtest.h>

#include <cstring>

using skiff::test::DmaFixture;

namespace {

class DmaMemcpy : public DmaFixture {};

} // namespace

TEST_F(DmaMemcpy, CopiesTheSourceDataIntoAnEmptyDestinationAndGrowsItsDataLength) {
    doca_buf *src = buf(0, 8192, 4096);
    doca_buf *dst = buf(65536, 8192, 0);
    submit(src, dst, 7);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(done[0].user_data, 7u);
    EXPECT_EQ(data_len(dst), 4096u);
    EXPECT_EQ(data_len(src), 4096u) << "the source is not consumed";
    EXPECT_EQ(std::memcmp(memory.data() + 65536, memory.data(), 4096), 0);
    EXPECT_NE(memory[65536 + 4096], memory[4096]) << "nothing beyond the data was copied";
}

TEST_F(DmaMemcpy, AppendsAfterTheDestinationsExistingData) {
    doca_buf *src = buf(0, 100, 100);
    doca_buf *dst = buf(4096, 300, 50); // 50 bytes of data already, 250 of tailroom
    std::vector<uint8_t> before(memory.begin() + 4096, memory.begin() + 4096 + 50);
    submit(src, dst);
    wait_for(1);
    ASSERT_EQ(done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(data_len(dst), 150u);
    EXPECT_EQ(std::memcmp(memory.data() + 4096, before.data(), 50), 0) << "existing data untouched";
    EXPECT_EQ(std::memcmp(memory.data() + 4096 + 50, memory.data(), 100), 0);
}

TEST_F(DmaMemcpy, CopiesOnlyTheDataRegionOfASourceWithHeadroom) {
    doca_buf *src = nullptr;
    uint8_t *head = memory.data() + 1000;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, head, 500, head + 100, 200, &src), DOCA_SUCCESS);
    bufs.push_back(src);
    doca_buf *dst = buf(8192, 1024, 0);
    submit(src, dst);
    wait_for(1);
    ASSERT_EQ(done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(data_len(dst), 200u);
    EXPECT_EQ(std::memcmp(memory.data() + 8192, head + 100, 200), 0);
}

TEST_F(DmaMemcpy, TooSmallTailroomFailsInTheErrorCallbackAndTrySubmitRefusesIt) {
    doca_buf *src = buf(0, 4096, 4096);
    doca_buf *dst = buf(65536, 4096, 1); // 4095 bytes of tailroom
    doca_dma_task_memcpy *task = nullptr;
    ASSERT_EQ(doca_dma_task_memcpy_alloc_init(dma, src, dst, {}, &task), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_try_submit(doca_dma_task_memcpy_as_task(task)), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(data_len(dst), 1u);
    ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS); // not validated
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(data_len(dst), 1u) << "a failed task leaves the destination as it was";
}

TEST_F(DmaMemcpy, GathersASourceListAndScattersIntoADestinationList) {
    doca_buf *s1 = buf(0, 100, 100), *s2 = buf(1000, 300, 300), *s3 = buf(5000, 50, 50);
    ASSERT_EQ(doca_buf_chain_list(s1, s2), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_chain_list(s1, s3), DOCA_SUCCESS);
    bufs = {s1};
    doca_buf *d1 = buf(100000, 200, 0), *d2 = buf(200000, 1000, 0);
    ASSERT_EQ(doca_buf_chain_list(d1, d2), DOCA_SUCCESS);
    bufs = {s1, d1};
    submit(s1, d1);
    wait_for(1);
    ASSERT_EQ(done[0].status, DOCA_SUCCESS);
    std::vector<uint8_t> expected;
    expected.insert(expected.end(), memory.begin(), memory.begin() + 100);
    expected.insert(expected.end(), memory.begin() + 1000, memory.begin() + 1300);
    expected.insert(expected.end(), memory.begin() + 5000, memory.begin() + 5050);
    EXPECT_EQ(data_len(d1), 200u);
    EXPECT_EQ(data_len(d2), 250u);
    EXPECT_EQ(std::memcmp(memory.data() + 100000, expected.data(), 200), 0);
    EXPECT_EQ(std::memcmp(memory.data() + 200000, expected.data() + 200, 250), 0);
}

TEST_F(DmaMemcpy, ListsLongerThanTheAdvertisedMaximumAreRefused) {
    uint32_t max_list = 0;
    ASSERT_EQ(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(dev), &max_list),
              DOCA_SUCCESS);
    ASSERT_EQ(max_list, 16u);
    doca_buf *head = buf(0, 16, 16);
    for (uint32_t i = 1; i <= max_list; ++i) {
        doca_buf *b = buf(16 * i, 16, 16);
        ASSERT_EQ(doca_buf_chain_list(head, b), DOCA_SUCCESS);
    }
    bufs = {head};
    doca_buf *dst = buf(500000, 4096, 0);
    doca_dma_task_memcpy *task = nullptr;
    ASSERT_EQ(doca_dma_task_memcpy_alloc_init(dma, head, dst, {}, &task), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_try_submit(doca_dma_task_memcpy_as_task(task)), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(data_len(dst), 0u);
}

TEST_F(DmaMemcpy, WritingIntoAReadOnlyMmapIsNotPermitted) {
    std::vector<uint8_t> ro_memory(4096, 0x5a);
    doca_mmap *ro = nullptr;
    ASSERT_EQ(doca_mmap_create(&ro), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(ro, ro_memory.data(), ro_memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(ro, dev), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(ro), DOCA_SUCCESS);
    doca_buf *dst = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, ro, ro_memory.data(), 4096, &dst), DOCA_SUCCESS);
    doca_buf *src = buf(0, 64, 64);
    doca_dma_task_memcpy *task = nullptr;
    ASSERT_EQ(doca_dma_task_memcpy_alloc_init(dma, src, dst, {}, &task), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_try_submit(doca_dma_task_memcpy_as_task(task)), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(ro_memory, std::vector<uint8_t>(4096, 0x5a));
    EXPECT_EQ(data_len(dst), 0u);

    // Reading from it is fine.
    doca_buf *ro_src = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, ro, ro_memory.data(), 32, &ro_src), DOCA_SUCCESS);
    doca_buf *local_dst = buf(300000, 64, 0);
    submit(ro_src, local_dst);
    wait_for(2);
    EXPECT_EQ(done[1].status, DOCA_SUCCESS);
    EXPECT_EQ(memory[300000], 0x5a);
    doca_buf_dec_refcount(dst, nullptr);
    doca_buf_dec_refcount(ro_src, nullptr);
    EXPECT_EQ(doca_mmap_destroy(ro), DOCA_SUCCESS);
}

TEST_F(DmaMemcpy, CapabilitiesAreAdvertised) {
    doca_devinfo *info = doca_dev_as_devinfo(dev);
    EXPECT_EQ(doca_dma_cap_task_memcpy_is_supported(info), DOCA_SUCCESS);
    uint64_t max_size = 0;
    ASSERT_EQ(doca_dma_cap_task_memcpy_get_max_buf_size(info, &max_size), DOCA_SUCCESS);
    EXPECT_EQ(max_size, uint64_t{1} << 31);
    uint32_t max_tasks = 0;
    ASSERT_EQ(doca_dma_cap_get_max_num_tasks(dma, &max_tasks), DOCA_SUCCESS);
    EXPECT_EQ(max_tasks, 65536u);
    EXPECT_EQ(doca_dma_cap_task_memcpy_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dma_cap_task_memcpy_get_max_buf_size(info, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DmaMemcpy, ConfigurationAndDestroyAreRefusedWhileRunning) {
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, on_memcpy, on_memcpy, 4), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(skiff_dma_set_completion_order_seed(dma, 3), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dma_destroy(dma), DOCA_ERROR_IN_USE);
    doca_dma_task_memcpy *task = nullptr;
    EXPECT_EQ(doca_dma_task_memcpy_alloc_init(nullptr, nullptr, nullptr, {}, &task),
              DOCA_ERROR_INVALID_VALUE);
}

TEST(DmaCreate, ArgumentsAndTaskCountsAreChecked) {
    doca_dev *dev = skiff::test::open_dpu_p0();
    ASSERT_NE(dev, nullptr);
    doca_dma *dma = nullptr;
    EXPECT_EQ(doca_dma_create(nullptr, &dma), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dma_create(dev, nullptr), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_dma_create(dev, &dma), DOCA_SUCCESS);
    auto cb = [](doca_dma_task_memcpy *, doca_data, doca_data) {};
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, cb, cb, 0), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, cb, cb, 65537), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, nullptr, cb, 4), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dma_task_memcpy_set_conf(dma, cb, cb, 4), DOCA_SUCCESS);
    EXPECT_EQ(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}
