// Tasks (spec 5.5 items 31, 32): allocation only while RUNNING, fixed pools (NO_MEMORY when
// exhausted), ownership on submit failure, try_submit validation, re-submit / keep in callbacks.
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <vector>

using skiff::test::progress_all;
using skiff::test::SyncCtxFixture;

namespace {

struct GetTasks : SyncCtxFixture {
    enum class Then { free, resubmit_once, keep };
    static inline GetTasks *self = nullptr;
    Then then = Then::free;
    int resubmits = 0;
    std::vector<doca_error_t> ok, failed;
    std::vector<uint64_t> user_values;
    std::vector<doca_task *> kept;
    uint64_t value = 0;

    static void ok_cb(doca_sync_event_task_get *task, doca_data task_ud, doca_data) {
        doca_task *t = doca_sync_event_task_get_as_doca_task(task);
        self->ok.push_back(doca_task_get_status(t));
        self->user_values.push_back(task_ud.u64);
        self->after(t);
    }
    static void err_cb(doca_sync_event_task_get *task, doca_data, doca_data) {
        doca_task *t = doca_sync_event_task_get_as_doca_task(task);
        self->failed.push_back(doca_task_get_status(t));
        doca_task_free(t);
    }
    void after(doca_task *t) {
        if (then == Then::resubmit_once && resubmits++ == 0) {
            EXPECT_EQ(doca_task_submit(t), DOCA_SUCCESS);
        } else if (then == Then::keep) {
            kept.push_back(t);
        } else {
            doca_task_free(t);
        }
    }

    void SetUp() override {
        SyncCtxFixture::SetUp();
        self = this;
        ASSERT_EQ(doca_sync_event_task_get_set_conf(event, ok_cb, err_cb, 2), DOCA_SUCCESS);
    }

    doca_error_t alloc(doca_sync_event_task_get **task, uint64_t ud = 0) {
        doca_data data{};
        data.u64 = ud;
        return doca_sync_event_task_get_alloc_init(event, &value, data, task);
    }
};

} // namespace

TEST_F(GetTasks, AllocationOnlyWhileRunning) {
    doca_sync_event_task_get *task = nullptr;
    EXPECT_EQ(alloc(&task), DOCA_ERROR_BAD_STATE);
    connect_and_start();
    ASSERT_EQ(alloc(&task), DOCA_SUCCESS);
    doca_task_free(doca_sync_event_task_get_as_doca_task(task));
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    EXPECT_EQ(alloc(&task), DOCA_ERROR_BAD_STATE);
}

TEST_F(GetTasks, ExhaustedPoolIsNoMemoryAndFreeingRefillsIt) {
    connect_and_start();
    doca_sync_event_task_get *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(alloc(&a), DOCA_SUCCESS);
    ASSERT_EQ(alloc(&b), DOCA_SUCCESS);
    EXPECT_EQ(alloc(&c), DOCA_ERROR_NO_MEMORY);
    doca_task_free(doca_sync_event_task_get_as_doca_task(a));
    ASSERT_EQ(alloc(&c), DOCA_SUCCESS);
    doca_task_free(doca_sync_event_task_get_as_doca_task(b));
    doca_task_free(doca_sync_event_task_get_as_doca_task(c));
}

TEST_F(GetTasks, UnconfiguredTaskKindIsNoMemory) {
    connect_and_start();
    doca_sync_event_task_notify_set *task = nullptr;
    EXPECT_EQ(doca_sync_event_task_notify_set_alloc_init(event, 1, {}, &task), DOCA_ERROR_NO_MEMORY);
}

TEST_F(GetTasks, GenericAccessorsReportCtxUserDataAndStatus) {
    connect_and_start();
    doca_sync_event_task_get *task = nullptr;
    ASSERT_EQ(alloc(&task, 77), DOCA_SUCCESS);
    doca_task *t = doca_sync_event_task_get_as_doca_task(task);
    EXPECT_EQ(doca_task_get_ctx(t), ctx);
    EXPECT_EQ(doca_task_get_user_data(t).u64, 77u);
    doca_data ud{};
    ud.u64 = 78;
    doca_task_set_user_data(t, ud);
    ASSERT_EQ(doca_sync_event_update_set(event, 9), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(t), DOCA_SUCCESS);
    EXPECT_TRUE(ok.empty()) << "no callback inside submit";
    progress_all(pe);
    EXPECT_EQ(ok, (std::vector<doca_error_t>{DOCA_SUCCESS}));
    EXPECT_EQ(user_values, (std::vector<uint64_t>{78}));
    EXPECT_EQ(value, 9u);
}

TEST_F(GetTasks, TrySubmitRejectsAnInvalidTaskAndLeavesItWithTheCaller) {
    connect_and_start();
    doca_sync_event_task_get *task = nullptr;
    ASSERT_EQ(alloc(&task), DOCA_SUCCESS);
    doca_task *t = doca_sync_event_task_get_as_doca_task(task);
    doca_sync_event_task_get_set_ret_val_ptr(task, nullptr);
    EXPECT_EQ(doca_task_try_submit(t), DOCA_ERROR_INVALID_VALUE);
    size_t inflight = 1;
    doca_ctx_get_num_inflight_tasks(ctx, &inflight);
    EXPECT_EQ(inflight, 0u);
    // Still ours: fix it and submit again.
    doca_sync_event_task_get_set_ret_val_ptr(task, &value);
    EXPECT_EQ(doca_task_try_submit(t), DOCA_SUCCESS);
    EXPECT_EQ(doca_task_submit(t), DOCA_ERROR_BAD_STATE) << "already in flight";
    progress_all(pe);
    EXPECT_EQ(ok.size(), 1u);
}

TEST_F(GetTasks, SubmitWithoutValidationFailsInTheErrorCallback) {
    connect_and_start();
    doca_sync_event_task_get *task = nullptr;
    ASSERT_EQ(alloc(&task), DOCA_SUCCESS);
    doca_sync_event_task_get_set_ret_val_ptr(task, nullptr);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_get_as_doca_task(task)), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(failed, (std::vector<doca_error_t>{DOCA_ERROR_INVALID_VALUE}));
}

TEST_F(GetTasks, CallbackMayResubmitTheTask) {
    then = Then::resubmit_once;
    connect_and_start();
    doca_sync_event_task_get *task = nullptr;
    ASSERT_EQ(alloc(&task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_get_as_doca_task(task)), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(ok.size(), 2u);
}

TEST_F(GetTasks, CallbackMayKeepTheTaskForLaterReuse) {
    then = Then::keep;
    connect_and_start();
    doca_sync_event_task_get *task = nullptr;
    ASSERT_EQ(alloc(&task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_get_as_doca_task(task)), DOCA_SUCCESS);
    progress_all(pe);
    ASSERT_EQ(kept.size(), 1u);
    ASSERT_EQ(doca_task_submit(kept[0]), DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(ok.size(), 2u);
    for (doca_task *t : kept) doca_task_free(t);
}
