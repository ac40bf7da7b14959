// A running DMA context on DPU PF p0 over a 1 MiB local mmap, with a progress engine and
// recorders for memcpy completions: the common setting of the DMA tests.
#pragma once

#include "mmap_fixture.hpp"
#include "pe_support.hpp"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

namespace skiff::test {

struct MemcpyDone {
    doca_dma_task_memcpy *task;
    doca_error_t status;
    uint64_t user_data;
    std::thread::id thread;
};

class DmaFixture : public ::testing::Test {
  protected:
    static constexpr size_t kSize = 1 << 20;
    static constexpr uint32_t kTasks = 256;
    static inline DmaFixture *self = nullptr;

    // Filled by the callbacks; each callback frees its task unless keep_tasks is set.
    std::vector<MemcpyDone> done;
    bool keep_tasks = false;
    StateLog states;

    static void on_memcpy(doca_dma_task_memcpy *task, doca_data task_ud, doca_data) {
        doca_task *t = doca_dma_task_memcpy_as_task(task);
        self->done.push_back({task, doca_task_get_status(t), task_ud.u64, std::this_thread::get_id()});
        if (!self->keep_tasks) doca_task_free(t);
    }

    virtual uint32_t num_tasks() const { return kTasks; }
    virtual void before_start() {}

    void SetUp() override {
        self = this;
        dev = open_dpu_p0();
        ASSERT_NE(dev, nullptr);
        for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>((i * 2654435761u) >> 16);
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_create(2 * kTasks + 64, &inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_create(dev, &dma), DOCA_SUCCESS);
        ctx = doca_dma_as_ctx(dma);
        doca_data ud{};
        ud.ptr = &states;
        ASSERT_EQ(doca_ctx_set_user_data(ctx, ud), DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_set_state_changed_cb(ctx, &StateLog::on_change), DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_task_memcpy_set_conf(dma, on_memcpy, on_memcpy, num_tasks()), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        before_start();
        ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
        progress_all(pe);
    }

    void TearDown() override {
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        if (s != DOCA_CTX_STATE_IDLE) {
            if (keep_tasks)
                for (auto &d : done) doca_task_free(doca_dma_task_memcpy_as_task(d.task));
            keep_tasks = false;
            done.clear();
            doca_ctx_stop(ctx);
            EXPECT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
        }
        for (doca_buf *b : bufs) doca_buf_dec_refcount(b, nullptr);
        EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    }

    // A buf over [off, off + len) of the local memory holding data_len bytes of data at its start.
    doca_buf *buf(size_t off, size_t len, size_t data_len, doca_mmap *in = nullptr) {
        doca_buf *b = nullptr;
        uint8_t *p = memory.data() + off;
        EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, in ? in : mmap, p, len, p, data_len, &b),
                  DOCA_SUCCESS);
        bufs.push_back(b);
        return b;
    }
    size_t data_len(doca_buf *b) {
        size_t n = 0;
        EXPECT_EQ(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
        return n;
    }
    doca_dma_task_memcpy *submit(doca_buf *src, doca_buf *dst, uint64_t user_data = 0) {
        doca_dma_task_memcpy *task = nullptr;
        doca_data ud{};
        ud.u64 = user_data;
        EXPECT_EQ(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &task), DOCA_SUCCESS);
        EXPECT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
        return task;
    }
    // Progresses until `count` completions were seen (bounded by calls, not by time).
    void wait_for(size_t count) {
        for (long i = 0; i < 200000000L && done.size() < count; ++i) doca_pe_progress(pe);
        ASSERT_EQ(done.size(), count);
    }

    std::vector<uint8_t> memory = std::vector<uint8_t>(kSize);
    std::vector<doca_buf *> bufs;
    doca_dev *dev = nullptr;
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    doca_pe *pe = nullptr;
    doca_dma *dma = nullptr;
    doca_ctx *ctx = nullptr;
};

} // namespace skiff::test
