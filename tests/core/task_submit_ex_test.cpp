// doca_task_submit_ex and doca_ctx_flush_tasks (doca_pe.h, doca_ctx.h): DOCA programs written for
// hardware that batches submissions pass FLUSH and OPTIMIZE_REPORTS; skiff's engines take every
// task at submit and report it when it completes, which both flags allow.
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

using skiff::test::progress_all;
using skiff::test::SyncCtxFixture;

namespace {

struct SubmitEx : SyncCtxFixture {
    static inline SubmitEx *self = nullptr;
    int standalone_done = 0;
    uint64_t fetched[1] = {};

    static void task_ok(doca_sync_event_task_notify_add *task, doca_data, doca_data) {
        ++self->standalone_done;
        doca_task_free(doca_sync_event_task_notify_add_as_doca_task(task));
    }
    static void task_err(doca_sync_event_task_notify_add *, doca_data, doca_data) {
        ADD_FAILURE() << "a task reached its error callback";
    }

    void SetUp() override {
        SyncCtxFixture::SetUp();
        self = this;
        start_with_notify_add(task_ok, task_err);
    }
};

// Both flags submit as doca_task_submit does, unknown bits are refused, and doca_ctx_flush_tasks
// has nothing to flush.
TEST_F(SubmitEx, FlagsSubmitLikeSubmitAndUnknownBitsAreRefused) {
    doca_data marker{};
    marker.u64 = 0xABCD;
    doca_sync_event_task_notify_add *t[3] = {};
    for (auto &task : t)
        ASSERT_EQ(doca_sync_event_task_notify_add_alloc_init(event, 1, &fetched[0], marker, &task),
                  DOCA_SUCCESS);
    EXPECT_EQ(doca_task_submit_ex(doca_sync_event_task_notify_add_as_doca_task(t[0]), 1u << 5),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_task_submit_ex(nullptr, DOCA_TASK_SUBMIT_FLAG_NONE), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_task_submit_ex(doca_sync_event_task_notify_add_as_doca_task(t[0]),
                                  DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS),
              DOCA_SUCCESS);
    ASSERT_EQ(
        doca_task_submit_ex(doca_sync_event_task_notify_add_as_doca_task(t[1]), DOCA_TASK_SUBMIT_FLAG_NONE),
        DOCA_SUCCESS);
    EXPECT_EQ(
        doca_task_submit_ex(doca_sync_event_task_notify_add_as_doca_task(t[1]), DOCA_TASK_SUBMIT_FLAG_FLUSH),
        DOCA_ERROR_BAD_STATE)
        << "already in flight";
    doca_ctx_flush_tasks(ctx);
    ASSERT_EQ(doca_task_submit_ex(doca_sync_event_task_notify_add_as_doca_task(t[2]),
                                  DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS),
              DOCA_SUCCESS);
    progress_all(pe);
    EXPECT_EQ(standalone_done, 3);
    uint64_t counter = 0;
    ASSERT_EQ(doca_sync_event_get(event, &counter), DOCA_SUCCESS);
    EXPECT_EQ(counter, 3u);
}

} // namespace
