// doca_mmap_advise (DOCA 3.x, doca_mmap_advise.h): the cache-invalidate context as NVIDIA's
// cache_invalidate sample drives it, after a DMA write into the buffer; its checks, its pool and
// its stop.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "mmap_fixture.hpp"
#include "pe_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace {

struct Done {
    doca_mmap_advise_task_invalidate_cache *task;
    doca_error_t status;
    uint64_t user_data;
};

struct MmapAdvise : ::testing::Test {
    static constexpr uint32_t kTasks = 4;
    static inline MmapAdvise *self = nullptr;
    std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 16);
    doca_dev *dev = nullptr;
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    doca_pe *pe = nullptr;
    doca_mmap_advise *advise = nullptr;
    doca_ctx *ctx = nullptr;
    doca_buf *buf = nullptr;
    std::vector<Done> done;
    skiff::test::StateLog states;

    static void on_done(doca_mmap_advise_task_invalidate_cache *task, doca_data task_ud, doca_data) {
        doca_task *t = doca_mmap_advise_task_invalidate_cache_as_doca_task(task);
        self->done.push_back({task, doca_task_get_status(t), task_ud.u64});
        doca_task_free(t);
    }

    void SetUp() override {
        self = this;
        dev = skiff::test::open_dpu_p0();
        ASSERT_NE(dev, nullptr);
        ASSERT_EQ(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_create(8, &inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data(), memory.size(), &buf),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_advise_create(dev, &advise), DOCA_SUCCESS);
        ctx = doca_mmap_advise_as_ctx(advise);
        ASSERT_NE(ctx, nullptr);
        doca_data ud{};
        ud.ptr = &states;
        ASSERT_EQ(doca_ctx_set_user_data(ctx, ud), DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_set_state_changed_cb(ctx, &skiff::test::StateLog::on_change), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    }

    void start() {
        ASSERT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(advise, on_done, on_done, kTasks),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
        skiff::test::progress_all(pe);
    }

    doca_mmap_advise_task_invalidate_cache *alloc(doca_buf *b, uint64_t user_data) {
        doca_mmap_advise_task_invalidate_cache *task = nullptr;
        doca_data ud{};
        ud.u64 = user_data;
        EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_alloc_init(advise, b, ud, &task), DOCA_SUCCESS);
        return task;
    }

    void TearDown() override {
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        if (s != DOCA_CTX_STATE_IDLE) {
            doca_ctx_stop(ctx);
            EXPECT_TRUE(skiff::test::progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
        }
        EXPECT_EQ(doca_mmap_advise_destroy(advise), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        if (buf) doca_buf_dec_refcount(buf, nullptr);
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    }
};

} // namespace

TEST_F(MmapAdvise, AnInvalidationCompletesInProgressWithItsUserData) {
    start();
    ASSERT_EQ(states.changes.size(), 1u);
    EXPECT_EQ(states.changes[0].second, DOCA_CTX_STATE_RUNNING);
    doca_mmap_advise_task_invalidate_cache *task = alloc(buf, 42);
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_get_buf(task), buf);
    ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)), DOCA_SUCCESS);
    EXPECT_TRUE(done.empty()) << "completions come from doca_pe_progress, not from submit";
    skiff::test::progress_all(pe);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, DOCA_SUCCESS);
    EXPECT_EQ(done[0].user_data, 42u);
}

TEST_F(MmapAdvise, ThePoolHoldsTheConfiguredTasksAndTheyComeBackInOrder) {
    start();
    std::vector<doca_mmap_advise_task_invalidate_cache *> tasks;
    for (uint32_t i = 0; i < kTasks; ++i) tasks.push_back(alloc(buf, i));
    doca_mmap_advise_task_invalidate_cache *extra = nullptr;
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_alloc_init(advise, buf, doca_data{}, &extra),
              DOCA_ERROR_NO_MEMORY);
    for (auto *t : tasks)
        ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(t)), DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    ASSERT_EQ(done.size(), kTasks);
    for (uint32_t i = 0; i < kTasks; ++i) EXPECT_EQ(done[i].user_data, i);
    // Freed by the callbacks: the pool has them all again.
    for (uint32_t i = 0; i < kTasks; ++i)
        ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(alloc(buf, 10 + i))),
                  DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    EXPECT_EQ(done.size(), 2 * kTasks);
}

TEST_F(MmapAdvise, ATaskWithoutABufFailsThroughTheErrorCallbackAndTrySubmitRefusesIt) {
    start();
    doca_mmap_advise_task_invalidate_cache *task = alloc(buf, 1);
    doca_mmap_advise_task_invalidate_cache_set_buf(task, nullptr);
    doca_task *t = doca_mmap_advise_task_invalidate_cache_as_doca_task(task);
    EXPECT_EQ(doca_task_try_submit(t), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_task_submit(t), DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, DOCA_ERROR_INVALID_VALUE);
    doca_ctx_states s{};
    doca_ctx_get_state(ctx, &s);
    EXPECT_EQ(s, DOCA_CTX_STATE_RUNNING) << "one bad task does not stop the context";
}

TEST_F(MmapAdvise, ConfigurationAndAllocationFollowTheContextsState) {
    doca_mmap_advise_task_invalidate_cache *task = nullptr;
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(advise, on_done, on_done, 0),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(advise, nullptr, on_done, 1),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_alloc_init(advise, buf, doca_data{}, &task),
              DOCA_ERROR_BAD_STATE)
        << "tasks are allocated while RUNNING only";
    start();
    EXPECT_EQ(doca_mmap_advise_task_invalidate_cache_set_conf(advise, on_done, on_done, 2),
              DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_advise_destroy(advise), DOCA_ERROR_IN_USE) << "a running context is not destroyed";
    uint64_t max = 0;
    ASSERT_EQ(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &max),
              DOCA_SUCCESS);
    EXPECT_GE(max, memory.size());
}

TEST_F(MmapAdvise, AStopFlushesWhatIsInFlightAndTheContextStartsAgain) {
    start();
    ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(alloc(buf, 5))),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(skiff::test::progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(done.size(), 1u);
    EXPECT_EQ(done[0].status, DOCA_ERROR_SHUTDOWN);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    ASSERT_EQ(doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(alloc(buf, 6))),
              DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    ASSERT_EQ(done.size(), 2u);
    EXPECT_EQ(done[1].status, DOCA_SUCCESS);
}

TEST(MmapAdviseDevice, ADeviceThatCannotDmaHasNoCacheInvalidateAndCreateSaysSo) {
    char path[] = "/tmp/skiff-topology-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << R"({"side":"dpu","dpu":[{"name":"p0","pci":"03:00.0","caps":["rdma"]}]})";
    skiff::test::ScopedEnv topo("SKIFF_TOPOLOGY", path);
    doca_dev *dev = skiff::test::open_by_iface("dpu", "p0");
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(doca_mmap_advise_cap_task_cache_invalidate_is_supported(doca_dev_as_devinfo(dev)),
              DOCA_ERROR_NOT_SUPPORTED);
    uint64_t max = 0;
    EXPECT_EQ(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(dev), &max),
              DOCA_ERROR_NOT_SUPPORTED);
    doca_mmap_advise *advise = nullptr;
    EXPECT_EQ(doca_mmap_advise_create(dev, &advise), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_advise_cap_task_cache_invalidate_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_advise_create(nullptr, &advise), DOCA_ERROR_INVALID_VALUE);
    std::remove(path);
}
