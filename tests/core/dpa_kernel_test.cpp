// Kernel launch and RPC (spec 1.19.5, 1.19.10; checklist 5.8 items 50-51, 5.9 items 58-59): the
// linear and diamond examples of the DOCA DPA guide, rank / num_threads, asynchronous launch, the
// limits (threads per kernel, 256 hardware threads, [0, 254] values), update_set vs update_add, a
// completion event waited for through a progress engine's notification fd, and the blocking RPC.
#include "dpa_support.hpp"

#include <doca_ctx.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_pe.h>

#include <sys/epoll.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace {

using skiff::test::dpa_fn;
using skiff::test::event_value;
using skiff::test::eventually;

// Which kernels ran, in order.
std::mutex g_order_mu;
std::vector<int> g_order;

void record(uint64_t id) {
    std::lock_guard lock(g_order_mu);
    g_order.push_back(static_cast<int>(id));
}

void tag_kernel(uint64_t id) {
    record(id);
}

std::atomic<uint64_t> g_rank_bits{0};
std::atomic<unsigned> g_seen_num_threads{0};

void rank_kernel() {
    g_rank_bits.fetch_or(1ull << doca_dpa_dev_thread_rank());
    g_seen_num_threads.store(doca_dpa_dev_num_threads());
}

void sum_kernel(uint64_t a, uint64_t b, uint64_t out) {
    *reinterpret_cast<uint64_t *>(out) = a + b;
}

uint64_t add_rpc(uint64_t a, uint64_t b) {
    return a * 1000 + b;
}

struct DpaKernel : skiff::test::DpaTest {
    void SetUp() override {
        DpaTest::SetUp();
        kernel(&tag_kernel, 1, "tag_kernel");
        kernel(&rank_kernel, 0, "rank_kernel");
        kernel(&sum_kernel, 3, "sum_kernel");
        rpc(&add_rpc, 2, "add_rpc");
        start();
        std::lock_guard lock(g_order_mu);
        g_order.clear();
    }
    doca_sync_event *ev() { return skiff::test::make_dpa_event(dpa, dev); }
};

} // namespace

// ev_a -> K1 -> ev_b -> K2 -> ev_c -> K3 -> comp; launched in order, released by the host.
TEST_F(DpaKernel, LinearChainRunsInOrderAfterTheHostReleasesIt) {
    doca_sync_event *a = ev(), *b = ev(), *c = ev(), *comp = ev();
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, a, 0, b, 1, 1, dpa_fn(&tag_kernel), uint64_t{1}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, b, 0, c, 1, 1, dpa_fn(&tag_kernel), uint64_t{2}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, c, 0, comp, 1, 1, dpa_fn(&tag_kernel), uint64_t{3}),
              DOCA_SUCCESS);
    {
        std::lock_guard lock(g_order_mu);
        EXPECT_TRUE(g_order.empty()) << "nothing may start before ev_a > 0";
    }
    EXPECT_EQ(event_value(comp), 0u);
    ASSERT_EQ(doca_sync_event_update_set(a, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_gt(comp, 0, 0), DOCA_SUCCESS);
    {
        std::lock_guard lock(g_order_mu);
        EXPECT_EQ(g_order, (std::vector<int>{1, 2, 3}));
    }
    for (auto *e : {a, b, c, comp}) skiff::test::destroy_event(e);
}

// root -> {left, right} -> join (waits for a counter > 1: two parents) -> comp.
TEST_F(DpaKernel, DiamondJoinsTwoParentsThroughACounter) {
    doca_sync_event *start_ev = ev(), *fan = ev(), *join = ev(), *comp = ev();
    ASSERT_EQ(
        doca_dpa_kernel_launch_update_set(dpa, start_ev, 0, fan, 1, 1, dpa_fn(&tag_kernel), uint64_t{1}),
        DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, fan, 0, join, 1, 1, dpa_fn(&tag_kernel), uint64_t{2}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, fan, 0, join, 1, 1, dpa_fn(&tag_kernel), uint64_t{3}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, join, 1, comp, 1, 1, dpa_fn(&tag_kernel), uint64_t{4}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_update_set(start_ev, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_gt(comp, 0, 0), DOCA_SUCCESS);
    EXPECT_EQ(event_value(join), 2u) << "both middle kernels added 1";
    std::lock_guard lock(g_order_mu);
    ASSERT_EQ(g_order.size(), 4u);
    EXPECT_EQ(g_order.front(), 1);
    EXPECT_EQ(g_order.back(), 4) << "the join runs only after both parents";
    for (auto *e : {start_ev, fan, join, comp}) skiff::test::destroy_event(e);
}

TEST_F(DpaKernel, EveryRankRunsOnceAndSeesTheThreadCount) {
    doca_sync_event *comp = ev();
    g_rank_bits = 0;
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, comp, 1, 16, dpa_fn(&rank_kernel)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_gt(comp, 0, 0), DOCA_SUCCESS);
    EXPECT_EQ(g_rank_bits.load(), 0xFFFFull);
    EXPECT_EQ(g_seen_num_threads.load(), 16u);
    EXPECT_EQ(event_value(comp), 1u) << "the completion event is updated once, after the last thread";
    skiff::test::destroy_event(comp);
}

TEST_F(DpaKernel, ArgumentsArePassedAndUpdateSetStoresTheCount) {
    doca_sync_event *comp = ev();
    ASSERT_EQ(doca_sync_event_update_set(comp, 7), DOCA_SUCCESS);
    uint64_t out = 0;
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, nullptr, 0, comp, 9, 1, dpa_fn(&sum_kernel),
                                                uint64_t{40}, uint64_t{2}, reinterpret_cast<uint64_t>(&out)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_gt(comp, 8, 0), DOCA_SUCCESS);
    EXPECT_EQ(event_value(comp), 9u) << "update_set stores comp_count";
    EXPECT_EQ(out, 42u);
    skiff::test::destroy_event(comp);
}

TEST_F(DpaKernel, LimitsAndValueRangesAreChecked) {
    doca_sync_event *e = ev();
    unsigned max_threads = 0;
    ASSERT_EQ(doca_dpa_get_max_threads_per_kernel(dpa, &max_threads), DOCA_SUCCESS);
    unsigned long long max_time = 0;
    ASSERT_EQ(doca_dpa_get_kernel_max_run_time(dpa, &max_time), DOCA_SUCCESS);
    EXPECT_GT(max_time, 0u);
    EXPECT_EQ(
        doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, max_threads + 1, dpa_fn(&rank_kernel)),
        DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 0, dpa_fn(&rank_kernel)),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, e, 255, nullptr, 0, 1, dpa_fn(&rank_kernel)),
              DOCA_ERROR_INVALID_VALUE)
        << "wait thresholds are [0, 254]";
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, e, 255, 1, dpa_fn(&rank_kernel)),
              DOCA_ERROR_INVALID_VALUE)
        << "completion counts are [0, 254]";
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 1, dpa_fn(&add_rpc)),
              DOCA_ERROR_INVALID_VALUE)
        << "an RPC function is not a kernel";
    // 254 is the largest valid threshold: the kernel waits for 255.
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, e, 254, e, 1, 1, dpa_fn(&tag_kernel), uint64_t{9}),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_update_set(e, 255), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_wait_gt(e, 255, 0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    skiff::test::destroy_event(e);
}

// The 256 hardware threads: thread objects and launched threads share them; the emulator refuses
// the one too many (DOCA itself does not check).
TEST_F(DpaKernel, TheHardwareThreadBudgetIsChecked) {
    std::vector<doca_dpa_thread *> threads;
    for (int i = 0; i < 200; ++i) {
        doca_dpa_thread *t = nullptr;
        ASSERT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_SUCCESS);
        threads.push_back(t);
    }
    doca_sync_event *gate = ev();
    // 56 threads fit exactly; the launch waits on the gate so they stay reserved.
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, gate, 0, nullptr, 0, 56, dpa_fn(&rank_kernel)),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 1, dpa_fn(&rank_kernel)),
              DOCA_ERROR_FULL);
    doca_dpa_thread *extra = nullptr;
    EXPECT_EQ(doca_dpa_thread_create(dpa, &extra), DOCA_ERROR_FULL);
    doca_sync_event *comp = ev();
    ASSERT_EQ(doca_sync_event_update_set(gate, 1), DOCA_SUCCESS);
    // Once the waiting launch ran, its threads are free again.
    ASSERT_TRUE(eventually([&] {
        return doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, comp, 1, 1, dpa_fn(&rank_kernel)) ==
               DOCA_SUCCESS;
    }));
    ASSERT_EQ(doca_sync_event_wait_gt(comp, 0, 0), DOCA_SUCCESS);
    for (auto *t : threads) EXPECT_EQ(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
    skiff::test::destroy_event(gate);
    skiff::test::destroy_event(comp);
}

// The completion event as a ctx of a progress engine: the host sleeps on the PE's fd until the
// kernel completes, and the wait_gt task completes inside progress.
TEST_F(DpaKernel, CompletionEventWakesAProgressEngine) {
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    doca_sync_event *comp = nullptr;
    ASSERT_EQ(doca_sync_event_create(&comp), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_dpa(comp, dpa), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(comp, dev), DOCA_SUCCESS);
    doca_ctx *ctx = doca_sync_event_as_ctx(comp);
    ASSERT_NE(ctx, nullptr);
    static int completed;
    completed = 0;
    auto done = [](doca_sync_event_task_wait_gt *, doca_data, doca_data) { ++completed; };
    ASSERT_EQ(doca_sync_event_task_wait_gt_set_conf(comp, done, done, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    doca_sync_event_task_wait_gt *task = nullptr;
    ASSERT_EQ(doca_sync_event_task_wait_gt_alloc_init(comp, 0, UINT64_MAX, doca_data{}, &task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_wait_gt_as_doca_task(task)), DOCA_SUCCESS);

    doca_event_handle_t fd{};
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    int ep = epoll_create1(0);
    epoll_event want{};
    want.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &want), 0);
    while (doca_pe_progress(pe)) {
    }
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, comp, 1, 4, dpa_fn(&rank_kernel)),
              DOCA_SUCCESS);
    for (int spins = 0; completed == 0 && spins < 1000; ++spins) {
        epoll_event got{};
        epoll_wait(ep, &got, 1, 100);
        ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
        while (doca_pe_progress(pe)) {
        }
        if (completed == 0) {
            ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
        }
    }
    EXPECT_EQ(completed, 1);
    close(ep);
    doca_task_free(doca_sync_event_task_wait_gt_as_doca_task(task));
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_destroy(comp), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST_F(DpaKernel, RpcBlocksAndReturnsTheResult) {
    uint64_t ret = 0;
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&add_rpc), &ret, uint64_t{4}, uint64_t{2}), DOCA_SUCCESS);
    EXPECT_EQ(ret, 4002u);
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&tag_kernel), &ret, uint64_t{1}), DOCA_ERROR_INVALID_VALUE)
        << "a kernel is not an RPC";
}
