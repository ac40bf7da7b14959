// The ctx state machine (spec 5.5 items 30, 36, 38): connect rules, start/stop, state-change
// callbacks delivered inside progress, stop with tasks in flight, restart.
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <vector>

using skiff::test::progress_all;
using skiff::test::progress_until_state;
using skiff::test::SyncCtxFixture;

namespace {

struct Completions {
    std::vector<doca_error_t> ok, failed;
    bool free_in_callback = true;
};

struct SyncWaitTasks : SyncCtxFixture {
    static inline Completions *current = nullptr;
    Completions done;

    static void ok_cb(doca_sync_event_task_wait_gt *task, doca_data, doca_data) {
        doca_task *t = doca_sync_event_task_wait_gt_as_doca_task(task);
        current->ok.push_back(doca_task_get_status(t));
        if (current->free_in_callback) doca_task_free(t);
    }
    static void err_cb(doca_sync_event_task_wait_gt *task, doca_data, doca_data) {
        doca_task *t = doca_sync_event_task_wait_gt_as_doca_task(task);
        current->failed.push_back(doca_task_get_status(t));
        if (current->free_in_callback) doca_task_free(t);
    }

    void SetUp() override {
        SyncCtxFixture::SetUp();
        current = &done;
        ASSERT_EQ(doca_sync_event_task_wait_gt_set_conf(event, ok_cb, err_cb, 8), DOCA_SUCCESS);
    }

    doca_task *submit_wait(uint64_t threshold) {
        doca_sync_event_task_wait_gt *task = nullptr;
        EXPECT_EQ(doca_sync_event_task_wait_gt_alloc_init(event, threshold, UINT64_MAX, {}, &task),
                  DOCA_SUCCESS);
        doca_task *t = doca_sync_event_task_wait_gt_as_doca_task(task);
        EXPECT_EQ(doca_task_submit(t), DOCA_SUCCESS);
        return t;
    }
};

} // namespace

TEST_F(SyncCtxFixture, StartWithoutProgressEngineIsNotConnected) {
    EXPECT_EQ(doca_ctx_start(ctx), DOCA_ERROR_NOT_CONNECTED);
    doca_ctx_states s{};
    ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
}

TEST_F(SyncCtxFixture, ConnectTwiceIsNotPermittedAndConnectWhileRunningIsBadState) {
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_ERROR_NOT_PERMITTED);
    doca_pe *other = nullptr;
    ASSERT_EQ(doca_pe_create(&other), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_connect_ctx(other, ctx), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_connect_ctx(other, ctx), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_pe_connect_ctx(nullptr, ctx), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_pe_destroy(other), DOCA_SUCCESS);
}

TEST_F(SyncCtxFixture, ProgressEngineDestroyWhileCtxConnectedIsInUse) {
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
    ASSERT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS); // disconnects
    event = nullptr;
    ctx = nullptr;
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    pe = nullptr;
}

TEST_F(SyncCtxFixture, StartIsReportedInsideProgressWithCtxAlreadyRunning) {
    connect_and_start();
    doca_ctx_states s{};
    ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    EXPECT_EQ(s, DOCA_CTX_STATE_RUNNING);
    EXPECT_TRUE(states.changes.empty()) << "state callbacks run only inside doca_pe_progress";

    EXPECT_EQ(doca_pe_progress(pe), 1);
    ASSERT_EQ(states.changes.size(), 1u);
    EXPECT_EQ(states.changes[0].first, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(states.changes[0].second, DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(states.state_inside_cb[0], DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(states.threads[0], std::this_thread::get_id());
    EXPECT_EQ(doca_pe_progress(pe), 0);
    EXPECT_EQ(doca_ctx_start(ctx), DOCA_ERROR_BAD_STATE);
}

TEST_F(SyncCtxFixture, StopWithoutTasksGoesStraightToIdle) {
    connect_and_start();
    progress_all(pe);
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    doca_ctx_states s{};
    ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
    // The -> IDLE callback ran inside doca_ctx_stop: nothing is left for progress.
    ASSERT_EQ(states.changes.size(), 2u);
    EXPECT_EQ(states.changes[1].first, DOCA_CTX_STATE_RUNNING);
    EXPECT_EQ(states.changes[1].second, DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(states.state_inside_cb[1], DOCA_CTX_STATE_IDLE);
    EXPECT_EQ(doca_pe_progress(pe), 0);
}

TEST_F(SyncCtxFixture, StopOfAnIdleCtxSucceedsAndReportsNothing) {
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS) << "never started";
    connect_and_start();
    progress_all(pe);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    size_t reported = states.changes.size();
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS) << "a second stop, as cleanup paths do";
    EXPECT_EQ(doca_pe_progress(pe), 0);
    EXPECT_EQ(states.changes.size(), reported);
}

TEST_F(SyncCtxFixture, RestartRightAfterASynchronousStopGetsNoLateIdleCallback) {
    connect_and_start();
    progress_all(pe);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS); // restart as soon as IDLE is seen
    progress_all(pe);
    doca_ctx_states s{};
    ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    EXPECT_EQ(s, DOCA_CTX_STATE_RUNNING);
    ASSERT_FALSE(states.changes.empty());
    EXPECT_EQ(states.changes.back(), std::make_pair(DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING));
    for (size_t i = 0; i < states.changes.size(); ++i) {
        if (states.changes[i].second == DOCA_CTX_STATE_IDLE) {
            EXPECT_EQ(states.state_inside_cb[i], DOCA_CTX_STATE_IDLE) << "callback " << i;
        }
    }
}

TEST_F(SyncCtxFixture, ConfigurationIsRefusedAfterStart) {
    connect_and_start();
    auto cb = [](doca_sync_event_task_get *, doca_data, doca_data) {};
    EXPECT_EQ(doca_sync_event_task_get_set_conf(event, cb, cb, 4), DOCA_ERROR_BAD_STATE);
    uint64_t word = 0;
    EXPECT_EQ(doca_sync_event_set_addr(event, &word), DOCA_ERROR_BAD_STATE);
}

TEST_F(SyncWaitTasks, StopWithTasksInFlightFlushesThemThroughErrorCallbacks) {
    connect_and_start();
    progress_all(pe);
    for (int i = 0; i < 3; ++i) submit_wait(100); // the counter is 0: they cannot complete
    EXPECT_EQ(doca_pe_progress(pe), 0);
    size_t inflight = 0;
    ASSERT_EQ(doca_ctx_get_num_inflight_tasks(ctx, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 3u);

    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    doca_ctx_states s{};
    ASSERT_EQ(doca_ctx_get_state(ctx, &s), DOCA_SUCCESS);
    EXPECT_EQ(s, DOCA_CTX_STATE_STOPPING);
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);

    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    EXPECT_TRUE(done.ok.empty());
    EXPECT_EQ(done.failed,
              (std::vector<doca_error_t>{DOCA_ERROR_SHUTDOWN, DOCA_ERROR_SHUTDOWN, DOCA_ERROR_SHUTDOWN}));
    ASSERT_EQ(states.changes.size(), 3u);
    EXPECT_EQ(states.changes[1], std::make_pair(DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_STOPPING));
    EXPECT_EQ(states.changes[2], std::make_pair(DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(doca_ctx_get_num_inflight_tasks(ctx, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);
}

TEST_F(SyncWaitTasks, TasksTheEngineFinishedBeforeTheStopIsDeliveredStillFail) {
    connect_and_start();
    progress_all(pe);
    for (int i = 0; i < 3; ++i) submit_wait(0);
    ASSERT_EQ(doca_sync_event_update_set(event, 1), DOCA_SUCCESS); // the engine completes them
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);         // before any progress
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    EXPECT_TRUE(done.ok.empty()) << "a task in flight at stop was reported as a success";
    EXPECT_EQ(done.failed,
              (std::vector<doca_error_t>{DOCA_ERROR_SHUTDOWN, DOCA_ERROR_SHUTDOWN, DOCA_ERROR_SHUTDOWN}));
}

TEST_F(SyncWaitTasks, StoppingWaitsUntilEveryTaskIsFreed) {
    done.free_in_callback = false; // the application keeps the flushed tasks for a while
    connect_and_start();
    progress_all(pe);
    doca_task *a = submit_wait(100);
    doca_task *b = submit_wait(100);
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 100; ++i) doca_pe_progress(pe);
    ASSERT_EQ(done.failed.size(), 2u);
    doca_ctx_states s{};
    doca_ctx_get_state(ctx, &s);
    EXPECT_EQ(s, DOCA_CTX_STATE_STOPPING) << "two tasks are still held by the application";

    // A held task cannot be resubmitted while stopping: the submit fails, the task stays ours.
    EXPECT_EQ(doca_task_submit(a), DOCA_ERROR_BAD_STATE);
    doca_task_free(a);
    doca_pe_progress(pe);
    doca_ctx_get_state(ctx, &s);
    EXPECT_EQ(s, DOCA_CTX_STATE_STOPPING);
    doca_task_free(b);
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    EXPECT_EQ(states.changes.back(), std::make_pair(DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE));
}

TEST_F(SyncWaitTasks, RestartAsSoonAsIdleIsSeenNeverGetsTheIdleCallbackWhileRunning) {
    connect_and_start();
    progress_all(pe);
    submit_wait(100);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    // The application polls the state between progress calls and restarts the moment it is IDLE.
    bool restarted = false;
    for (int i = 0; i < 100000 && !restarted; ++i) {
        doca_pe_progress(pe);
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        if (s == DOCA_CTX_STATE_IDLE) restarted = doca_ctx_start(ctx) == DOCA_SUCCESS;
    }
    ASSERT_TRUE(restarted);
    progress_all(pe);
    ASSERT_GE(states.changes.size(), 4u);
    EXPECT_EQ(states.changes[2], std::make_pair(DOCA_CTX_STATE_STOPPING, DOCA_CTX_STATE_IDLE));
    EXPECT_EQ(states.state_inside_cb[2], DOCA_CTX_STATE_IDLE) << "the IDLE callback ran while RUNNING";
    EXPECT_EQ(states.changes.back(), std::make_pair(DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_RUNNING));
}

TEST_F(SyncWaitTasks, RestartAfterStopWorks) {
    connect_and_start();
    submit_wait(100);
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    progress_all(pe);
    submit_wait(0);
    ASSERT_EQ(doca_sync_event_update_set(event, 1), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_progress(pe), 1);
    EXPECT_EQ(done.ok, (std::vector<doca_error_t>{DOCA_SUCCESS}));
}

TEST(ExecObjects, DoubleDestroyIsDetected) {
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_ERROR_INVALID_VALUE);

    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_ERROR_INVALID_VALUE);
}

TEST(ExecObjects, RefusedDestroyKeepsTheObjectAlive) {
    doca_pe *pe = nullptr;
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_ERROR_IN_USE);
    ASSERT_EQ(doca_ctx_stop(doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}
