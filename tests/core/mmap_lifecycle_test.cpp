// doca_mmap lifecycle and configuration (spec 5.3 rules 12-14 and 19; 5.1 rule 1).
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

class MmapLifecycle : public ::testing::Test {
  protected:
    void SetUp() override {
        p0 = skiff::test::open_dpu_p0();
        p1 = skiff::test::open_dpu_p1();
        ASSERT_NE(p0, nullptr);
        ASSERT_NE(p1, nullptr);
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    }
    void TearDown() override {
        if (mmap != nullptr) {
            EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(p1), DOCA_SUCCESS);
    }
    std::vector<uint8_t> memory = std::vector<uint8_t>(4096);
    doca_dev *p0 = nullptr, *p1 = nullptr;
    doca_mmap *mmap = nullptr;
};

struct FreeCounter {
    int calls = 0;
    void *addr = nullptr;
    size_t len = 0;
    static void cb(void *addr, size_t len, void *opaque) {
        auto *self = static_cast<FreeCounter *>(opaque);
        ++self->calls;
        self->addr = addr;
        self->len = len;
    }
};

} // namespace

TEST_F(MmapLifecycle, Rule12_SetMemrangeOnlyOnce) {
    EXPECT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_memrange(mmap, memory.data(), 16), DOCA_ERROR_NOT_PERMITTED);
    void *addr = nullptr;
    size_t len = 0;
    ASSERT_EQ(doca_mmap_get_memrange(mmap, &addr, &len), DOCA_SUCCESS);
    EXPECT_EQ(addr, memory.data());
    EXPECT_EQ(len, memory.size());
}

TEST_F(MmapLifecycle, Rule12_SetMemrangeOverflowIsInvalidValue) {
    EXPECT_EQ(doca_mmap_set_memrange(mmap, reinterpret_cast<void *>(UINTPTR_MAX - 10), 100),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_set_memrange(mmap, memory.data(), 0), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(MmapLifecycle, GetMemrangeBeforeSetIsBadState) {
    void *addr = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_mmap_get_memrange(mmap, &addr, &len), DOCA_ERROR_BAD_STATE);
}

TEST_F(MmapLifecycle, StartWithoutMemrangeIsInvalidValue) {
    EXPECT_EQ(doca_mmap_start(mmap), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(MmapLifecycle, Rule12_ConfigurationIsFrozenAfterStart) {
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, p0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_start(mmap), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p1), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_rm_dev(mmap, p0), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_set_max_num_devices(mmap, 4), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_set_user_data(mmap, doca_data{.u64 = 1}), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_set_free_cb(mmap, FreeCounter::cb, nullptr), DOCA_ERROR_BAD_STATE);
}

TEST_F(MmapLifecycle, Rule1_ReconfigureAfterStopWorksWhereAllowed) {
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p1), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_max_num_devices(mmap, 4),
              DOCA_ERROR_NOT_PERMITTED); // only before the first start
    EXPECT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
}

TEST_F(MmapLifecycle, Rule12_DuplicateUnknownAndTooManyDevices) {
    ASSERT_EQ(doca_mmap_set_max_num_devices(mmap, 1), DOCA_SUCCESS);
    uint32_t max = 0;
    ASSERT_EQ(doca_mmap_get_max_num_devices(mmap, &max), DOCA_SUCCESS);
    EXPECT_EQ(max, 1u);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p0), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p0), DOCA_ERROR_ALREADY_EXIST);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p1), DOCA_ERROR_NO_MEMORY);
    EXPECT_EQ(doca_mmap_rm_dev(mmap, p1), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(doca_mmap_rm_dev(mmap, p0), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_add_dev(mmap, p1), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_set_max_num_devices(mmap, 0), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(MmapLifecycle, PermissionsRejectUndefinedBitsAndBothPciModes) {
    EXPECT_EQ(doca_mmap_set_permissions(mmap, 1u << 12), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(
        doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
        DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(
        doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
        DOCA_SUCCESS);
}

TEST_F(MmapLifecycle, Rule13_BufsOnlyOnAStartedMmapAndInsideItsRange) {
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *buf = nullptr;
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data(), 64, &buf), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data() + 4090, 7, &buf),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data() - 1, 2, &buf),
              DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data() + 4032, 64, &buf), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_dec_refcount(buf, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

TEST_F(MmapLifecycle, Rule14_StopAndDestroyRefusedWhileBufsPointIn) {
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, mmap, memory.data(), 100, &a), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data() + 100, 100, &b), DOCA_SUCCESS);
    uint32_t n = 0;
    ASSERT_EQ(doca_mmap_get_num_bufs(mmap, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_dec_refcount(a, nullptr), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_get_num_bufs(mmap, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    mmap = nullptr;
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

TEST_F(MmapLifecycle, Rule19_FreeCallbackRunsExactlyOnceOnDestroyOfAStartedMmap) {
    FreeCounter counter;
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(mmap, FreeCounter::cb, &counter), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    EXPECT_EQ(counter.calls, 0);
    ASSERT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    mmap = nullptr;
    EXPECT_EQ(counter.calls, 1);
    EXPECT_EQ(counter.addr, memory.data());
    EXPECT_EQ(counter.len, memory.size());
}

TEST_F(MmapLifecycle, Rule19_FreeCallbackNeverRunsForAnMmapNeverStarted) {
    FreeCounter counter;
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(mmap, FreeCounter::cb, &counter), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    mmap = nullptr;
    EXPECT_EQ(counter.calls, 0);
}

TEST_F(MmapLifecycle, Rule19_FreeCallbackChangedAfterStartIsNotRun) {
    FreeCounter first, second;
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(mmap, FreeCounter::cb, &first), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_free_cb(mmap, FreeCounter::cb, &second), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    mmap = nullptr;
    EXPECT_EQ(first.calls + second.calls, 0);
}

TEST_F(MmapLifecycle, UserDataRoundTrips) {
    ASSERT_EQ(doca_mmap_set_user_data(mmap, doca_data{.u64 = 0xfeed}), DOCA_SUCCESS);
    doca_data d{};
    ASSERT_EQ(doca_mmap_get_user_data(mmap, &d), DOCA_SUCCESS);
    EXPECT_EQ(d.u64, 0xfeedu);
    uint8_t flag = 1;
    ASSERT_EQ(doca_mmap_get_exported(mmap, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 0);
    ASSERT_EQ(doca_mmap_get_from_export(mmap, &flag), DOCA_SUCCESS);
    EXPECT_EQ(flag, 0);
}

TEST_F(MmapLifecycle, DmabufMemrangeIsNotSupported) {
    EXPECT_EQ(doca_mmap_set_dmabuf_memrange(mmap, 3, memory.data(), 0, memory.size()),
              DOCA_ERROR_NOT_SUPPORTED);
}
