// The C++ handles of the execution model (skiff/core/pe.hpp, ctx.hpp, dma.hpp, sync_event.hpp):
// a copy through Dma + ProgressEngine in notification mode, stop-and-drain, errors as Status.
#include <skiff/core/ctx.hpp>
#include <skiff/core/device.hpp>
#include <skiff/core/dma.hpp>
#include <skiff/core/pe.hpp>
#include <skiff/core/sync_event.hpp>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include <gtest/gtest.h>

#include <poll.h>

#include <cstring>
#include <thread>
#include <vector>

using namespace skiff::core;
using skiff::Status;

namespace {

int completed = 0;

void on_copy(doca_dma_task_memcpy *task, doca_data, doca_data) {
    ++completed;
    doca_task_free(doca_dma_task_memcpy_as_task(task));
}

} // namespace

TEST(ExecHandles, DmaCopyThroughHandlesInNotificationMode) {
    auto dev = Device::open_with_cap(DevCap::dma_memcpy);
    ASSERT_TRUE(dev) << dev.error().describe();
    std::vector<uint8_t> memory(8192);
    for (size_t i = 0; i < 4096; ++i) memory[i] = static_cast<uint8_t>(i ^ 0x55);
    doca_mmap *mmap = nullptr;
    ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, dev->get()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *src = nullptr, *dst = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, mmap, memory.data(), 4096, &src), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory.data() + 4096, 4096, &dst), DOCA_SUCCESS);
    {
        auto pe = ProgressEngine::create();
        ASSERT_TRUE(pe);
        auto dma = Dma::create(dev->get());
        ASSERT_TRUE(dma) << dma.error().describe();
        ASSERT_TRUE(dma->set_memcpy_conf(on_copy, on_copy, 4));
        ASSERT_TRUE(dma->connect(pe->get()));
        Status again = dma->connect(pe->get());
        ASSERT_FALSE(again);
        EXPECT_EQ(again.error().code, DOCA_ERROR_NOT_PERMITTED);
        ASSERT_TRUE(dma->ctx().start());
        pe->drain();
        EXPECT_EQ(dma->ctx().state(), DOCA_CTX_STATE_RUNNING);

        completed = 0;
        ASSERT_TRUE(pe->arm());
        ASSERT_TRUE(dma->submit_memcpy(src, dst, {}));
        pollfd pfd{pe->fd(), POLLIN, 0};
        ASSERT_EQ(poll(&pfd, 1, 30000), 1);
        ASSERT_TRUE(pe->clear());
        while (completed == 0) pe->progress();
        EXPECT_EQ(std::memcmp(memory.data() + 4096, memory.data(), 4096), 0);

        // Destroying a running Dma stops and drains it through its engine first.
        ASSERT_TRUE(dma->submit_memcpy(src, dst, {})); // fails in flight: no tailroom left
        Dma moved = std::move(dma.value());
        EXPECT_EQ(moved.ctx().inflight(), 1u);
    }
    EXPECT_EQ(completed, 2);
    doca_buf_dec_refcount(src, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

TEST(ExecHandles, SyncEventHandleCountsAndWakesAWaiter) {
    auto ev = SyncEvent::create_started();
    ASSERT_TRUE(ev) << ev.error().describe();
    ASSERT_TRUE(ev->set(10));
    auto before = ev->add(5);
    ASSERT_TRUE(before);
    EXPECT_EQ(before.value(), 10u);
    EXPECT_EQ(ev->value(), 15u);
    std::thread waiter([&] { EXPECT_TRUE(ev->wait_gt(99)); });
    ASSERT_TRUE(ev->set(100));
    waiter.join();
    Status bad = ev->wait_gt(0, 0x0F);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, DOCA_ERROR_INVALID_VALUE);
}
