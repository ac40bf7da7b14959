// Spec 5.5 item 37: a connection-oriented ctx starts asynchronously: start returns IN_PROGRESS in
// STARTING, no tasks can be allocated yet, and RUNNING is reported inside progress once the
// connection completes. No library context of the core starts asynchronously yet (RDMA will), so
// this drives the ctx base through a minimal connection-oriented context defined here.
#include "../../core/src/exec/context.hpp"
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>

#include <gtest/gtest.h>

#include <deque>

namespace {

struct ConnectTask : doca_task {};

// Starts in STARTING; `connect()` plays the peer accepting the connection. Tasks complete in
// progress, in submission order.
struct ConnectingCtx final : doca_ctx {
    ConnectingCtx() : doca_ctx("connecting") { register_task_kind(&kind); }
    void connect() { become_running(); }

    skiff::core::TypedTaskKind<ConnectTask> kind{"connect test"};

  protected:
    bool starts_asynchronously() const override { return true; }
    void execute(doca_task *task) override { queue.push_back(task); }
    doca_task *poll_completion() override {
        if (queue.empty()) return nullptr;
        doca_task *t = queue.front();
        queue.pop_front();
        if (flushing) t->status = DOCA_ERROR_SHUTDOWN;
        return t;
    }
    bool completions_pending() const override { return !queue.empty(); }
    void on_stop_requested() override { flushing = true; }
    doca_error_t on_start() override {
        flushing = false;
        return DOCA_SUCCESS;
    }

  private:
    std::deque<doca_task *> queue;
    bool flushing = false;
};

} // namespace

TEST(CtxAsyncStart, StartingBecomesRunningInsideProgressAfterTheConnection) {
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    {
        ConnectingCtx ctx;
        skiff::test::StateLog log;
        doca_data ud{};
        ud.ptr = &log;
        doca_ctx_set_user_data(&ctx, ud);
        doca_ctx_set_state_changed_cb(&ctx, &skiff::test::StateLog::on_change);
        auto ok = [](ConnectTask *t, doca_data, doca_data) { doca_task_free(t); };
        ctx.kind.configure(ok, ok, 2);
        ASSERT_EQ(doca_pe_connect_ctx(pe, &ctx), DOCA_SUCCESS);

        EXPECT_EQ(doca_ctx_start(&ctx), DOCA_ERROR_IN_PROGRESS);
        doca_ctx_states s{};
        doca_ctx_get_state(&ctx, &s);
        EXPECT_EQ(s, DOCA_CTX_STATE_STARTING);
        doca_task *task = nullptr;
        EXPECT_EQ(ctx.allocate(ctx.kind, &task, {}), DOCA_ERROR_BAD_STATE) << "no tasks while STARTING";
        EXPECT_EQ(doca_pe_progress(pe), 1);
        EXPECT_EQ(log.changes.back(), std::make_pair(DOCA_CTX_STATE_IDLE, DOCA_CTX_STATE_STARTING));
        EXPECT_EQ(doca_pe_progress(pe), 0);

        ctx.connect();
        EXPECT_EQ(log.changes.size(), 1u) << "reported only inside progress";
        EXPECT_EQ(doca_pe_progress(pe), 1);
        EXPECT_EQ(log.changes.back(), std::make_pair(DOCA_CTX_STATE_STARTING, DOCA_CTX_STATE_RUNNING));
        EXPECT_EQ(log.state_inside_cb.back(), DOCA_CTX_STATE_RUNNING);
        ASSERT_EQ(ctx.allocate(ctx.kind, &task, {}), DOCA_SUCCESS);
        ASSERT_EQ(doca_task_submit(task), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_progress(pe), 1);

        EXPECT_EQ(doca_ctx_stop(&ctx), DOCA_SUCCESS);
        // A stop that completes at once reports IDLE before it returns (doca_ctx.h).
        EXPECT_EQ(log.changes.back(), std::make_pair(DOCA_CTX_STATE_RUNNING, DOCA_CTX_STATE_IDLE));
        EXPECT_EQ(doca_pe_progress(pe), 0);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_ERROR_IN_USE);
    } // the ctx is destroyed: disconnected
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST(CtxAsyncStart, StopWhileStartingFlushesAndReachesIdle) {
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    {
        ConnectingCtx ctx;
        ASSERT_EQ(doca_pe_connect_ctx(pe, &ctx), DOCA_SUCCESS);
        EXPECT_EQ(doca_ctx_start(&ctx), DOCA_ERROR_IN_PROGRESS);
        EXPECT_EQ(doca_ctx_stop(&ctx), DOCA_SUCCESS);
        doca_ctx_states s{};
        doca_ctx_get_state(&ctx, &s);
        EXPECT_EQ(s, DOCA_CTX_STATE_IDLE);
        while (doca_pe_progress(pe)) {
        }
        EXPECT_EQ(doca_ctx_set_datapath_on_dpa(&ctx, reinterpret_cast<doca_dpa *>(&ctx)),
                  DOCA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(doca_ctx_set_datapath_on_gpu(&ctx, reinterpret_cast<doca_gpu *>(&ctx)),
                  DOCA_ERROR_NOT_SUPPORTED);
    }
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}
