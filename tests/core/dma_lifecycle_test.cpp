// The DMA context in motion (spec 5.5 items 33, 34, 36, 38, 39; 5.1 item 3): completions only
// inside progress and on the caller's thread, stop with tasks in flight, fatal error injection and
// restart, notification mode through epoll, seeded out-of-order delivery.
#include "dma_support.hpp"

#include <doca_dma.h>
#include <doca_pe.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <sys/epoll.h>
#include <unistd.h>

using skiff::test::DmaFixture;
using skiff::test::progress_until_state;

namespace {

class DmaLifecycle : public DmaFixture {
  protected:
    // n copies of `size` bytes: slot i copies [i * size) of the first half into the second half.
    void submit_copies(uint32_t n, size_t size, uint64_t first_user_data = 0) {
        for (uint32_t i = 0; i < n; ++i) {
            doca_buf *src = buf(i * size, size, size);
            doca_buf *dst = buf(kSize / 2 + i * size, size, 0);
            submit(src, dst, first_user_data + i);
        }
    }
    void release_bufs() {
        for (doca_buf *b : bufs) doca_buf_dec_refcount(b, nullptr);
        bufs.clear();
    }
    bool copied(uint32_t i, size_t size) {
        return std::memcmp(memory.data() + kSize / 2 + i * size, memory.data() + i * size, size) == 0;
    }
};

class DmaShuffledByEnvironment : public DmaLifecycle {
  protected:
    void SetUp() override {
        env_ = std::make_unique<skiff::test::ScopedEnv>("SKIFF_DMA_COMPLETION_ORDER_SEED", "777");
        DmaLifecycle::SetUp();
    }
    std::unique_ptr<skiff::test::ScopedEnv> env_;
};

class DmaShuffled : public DmaLifecycle {
  protected:
    void before_start() override { ASSERT_EQ(skiff_dma_set_completion_order_seed(dma, 12345), DOCA_SUCCESS); }
};

std::vector<uint64_t> user_order(const std::vector<skiff::test::MemcpyDone> &done) {
    std::vector<uint64_t> order;
    for (const auto &d : done) order.push_back(d.user_data);
    return order;
}

} // namespace

TEST_F(DmaLifecycle, CompletionsArriveOnlyThroughProgressOnTheCallersThread) {
    submit_copies(200, 1024);
    size_t inflight = 0;
    ASSERT_EQ(doca_pe_get_num_inflight_tasks(pe, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 200u) << "nothing completes without progress";
    EXPECT_TRUE(done.empty());
    wait_for(200);
    for (const auto &d : done) {
        EXPECT_EQ(d.status, DOCA_SUCCESS);
        EXPECT_EQ(d.thread, std::this_thread::get_id()) << "a callback ran on an engine thread";
    }
    for (uint32_t i = 0; i < 200; ++i) EXPECT_TRUE(copied(i, 1024)) << i;
    ASSERT_EQ(doca_pe_get_num_inflight_tasks(pe, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);
    EXPECT_EQ(doca_pe_progress(pe), 0);
}

TEST_F(DmaLifecycle, StopWithTasksInFlightFailsThemAllAndReachesIdle) {
    submit_copies(255, 2048);
    // The threaded engine: let it finish the copies first (no progress, so none is delivered): a
    // stop still fails every task in flight, also those whose data moved (doca_ctx.h). The inline
    // engine copies only inside progress, so there is nothing to wait for (and waiting by a count
    // of yields took minutes on a loaded machine).
    skiff_dma_engine_kind kind{};
    ASSERT_EQ(skiff_dma_get_engine(dma, &kind), DOCA_SUCCESS);
    if (kind == SKIFF_DMA_ENGINE_THREAD) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!copied(254, 2048) && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    }
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    doca_ctx_states s{};
    doca_ctx_get_state(ctx, &s);
    EXPECT_EQ(s, DOCA_CTX_STATE_STOPPING);
    doca_dma_task_memcpy *late = nullptr;
    EXPECT_EQ(doca_dma_task_memcpy_alloc_init(dma, bufs[0], bufs[1], {}, &late), DOCA_ERROR_BAD_STATE);

    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(done.size(), 255u) << "every in-flight task comes back through a callback";
    for (uint32_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i].status, DOCA_ERROR_SHUTDOWN) << i;
    ASSERT_GE(states.changes.size(), 3u);
    EXPECT_EQ(states.changes[states.changes.size() - 2],
              std::make_pair(DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING));
    EXPECT_EQ(states.changes.back(), std::make_pair(DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE));
}

TEST_F(DmaLifecycle, InjectedFatalErrorStopsTheCtxAndARestartWorks) {
    ASSERT_EQ(skiff_dma_inject_fatal_error(dma, 3, DOCA_ERROR_IO_FAILED), DOCA_SUCCESS);
    EXPECT_EQ(skiff_dma_inject_fatal_error(dma, 3, DOCA_SUCCESS), DOCA_ERROR_INVALID_VALUE);
    submit_copies(10, 512);
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(done.size(), 10u);
    size_t failed = 0, ok = 0, flushed = 0;
    for (const auto &d : done) {
        if (d.status == DOCA_ERROR_IO_FAILED) ++failed;
        if (d.status == DOCA_SUCCESS) ++ok;
        if (d.status == DOCA_ERROR_SHUTDOWN) ++flushed;
    }
    EXPECT_EQ(failed, 1u);
    EXPECT_EQ(ok, 2u) << "the two tasks before the failing one ran";
    EXPECT_EQ(flushed, 7u);
    auto &c = states.changes;
    ASSERT_GE(c.size(), 3u);
    EXPECT_EQ(c[c.size() - 2], std::make_pair(DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING));
    EXPECT_EQ(c.back(), std::make_pair(DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE));

    // Recover: start again and copy.
    release_bufs();
    done.clear();
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    submit_copies(4, 512, 100);
    wait_for(4);
    for (const auto &d : done) EXPECT_EQ(d.status, DOCA_SUCCESS);
    EXPECT_EQ(states.changes.back(), std::make_pair(DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING));
}

TEST_F(DmaLifecycle, NotificationModeWakesEpollWhenCopiesComplete) {
    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    ASSERT_GE(epfd, 0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);

    const uint32_t n = 64;
    submit_copies(n, 4096);
    int wakeups = 0;
    while (done.size() < n) {
        ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
        epoll_event got{};
        // Generous guard so a broken wake-up fails the test instead of hanging it.
        int r = epoll_wait(epfd, &got, 1, 30000);
        ASSERT_EQ(r, 1) << "armed engine was never woken";
        ++wakeups;
        ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
        while (doca_pe_progress(pe)) {
        }
    }
    EXPECT_GE(wakeups, 1);
    for (uint32_t i = 0; i < n; ++i) EXPECT_TRUE(copied(i, 4096));
    close(epfd);
}

TEST_F(DmaLifecycle, AnUnarmedEngineNeverMakesItsHandleReadable) {
    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);
    submit_copies(32, 1024); // polling mode: never armed
    wait_for(32);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS); // joins the engine: it has announced everything
    progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE);
    epoll_event got{};
    EXPECT_EQ(epoll_wait(epfd, &got, 1, 0), 0) << "no wake-up without request_notification";
    // Armed with nothing pending: still quiet.
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    EXPECT_EQ(epoll_wait(epfd, &got, 1, 0), 0);
    ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
    close(epfd);
}

TEST_F(DmaShuffled, SeededModeDeliversAReproduciblePermutationThatIsNotFifo) {
    const uint32_t n = 64;
    submit_copies(n, 256);
    wait_for(n);
    std::vector<uint64_t> first = user_order(done);
    std::vector<uint64_t> fifo(n);
    std::iota(fifo.begin(), fifo.end(), 0);
    EXPECT_NE(first, fifo);
    std::vector<uint64_t> sorted = first;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, fifo) << "every task exactly once";

    // Same seed, same submissions: same order, whatever the engine's timing.
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    release_bufs();
    done.clear();
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    submit_copies(n, 256);
    wait_for(n);
    EXPECT_EQ(user_order(done), first);
}

TEST_F(DmaShuffledByEnvironment, EnvironmentSeedShufflesEveryNewContext) {
    const uint32_t n = 32;
    submit_copies(n, 128);
    wait_for(n);
    std::vector<uint64_t> fifo(n);
    std::iota(fifo.begin(), fifo.end(), 0);
    EXPECT_NE(user_order(done), fifo);
}
