// Shared pieces of the execution-model tests: a progress engine with a sync event used as a ctx
// (a real ctx that needs no device), and recorders for callbacks and state changes.
#pragma once

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <vector>

namespace skiff::test {

struct StateLog {
    std::vector<std::pair<doca_ctx_states, doca_ctx_states>> changes;
    std::vector<doca_ctx_states> state_inside_cb;
    std::vector<std::thread::id> threads;

    static void on_change(const doca_data user_data, doca_ctx *ctx, doca_ctx_states prev,
                          doca_ctx_states next) {
        auto *self = static_cast<StateLog *>(user_data.ptr);
        self->changes.emplace_back(prev, next);
        doca_ctx_states now{};
        doca_ctx_get_state(ctx, &now);
        self->state_inside_cb.push_back(now);
        self->threads.push_back(std::this_thread::get_id());
    }
};

// Progresses until the ctx reports `want` and nothing is left to deliver. Bounded by a number of
// calls, never by time; yields when idle so that engine threads get the CPU on a busy machine.
inline bool progress_until_state(doca_pe *pe, doca_ctx *ctx, doca_ctx_states want,
                                 long max_calls = 20000000) {
    for (long i = 0; i < max_calls; ++i) {
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        uint8_t progressed = doca_pe_progress(pe);
        if (s == want && progressed == 0) return true;
        if (!progressed) std::this_thread::yield();
    }
    return false;
}

// Drains every pending unit of work.
inline int progress_all(doca_pe *pe) {
    int n = 0;
    while (doca_pe_progress(pe)) ++n;
    return n;
}

// A PE with one sync event used as a ctx; task kinds are configured by the test before start.
struct SyncCtxFixture : ::testing::Test {
    doca_pe *pe = nullptr;
    doca_sync_event *event = nullptr;
    doca_ctx *ctx = nullptr;
    StateLog states;

    void SetUp() override {
        ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
        ctx = doca_sync_event_as_ctx(event);
        ASSERT_NE(ctx, nullptr);
        doca_data ud{};
        ud.ptr = &states;
        ASSERT_EQ(doca_ctx_set_user_data(ctx, ud), DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_set_state_changed_cb(ctx, &StateLog::on_change), DOCA_SUCCESS);
    }

    void TearDown() override {
        doca_ctx_states s{};
        if (ctx && doca_ctx_get_state(ctx, &s) == DOCA_SUCCESS && s != DOCA_CTX_STATE_IDLE) {
            doca_ctx_stop(ctx);
            progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE);
        }
        if (event) {
            EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
        }
        if (pe) {
            EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        }
    }

    void connect_and_start() {
        ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
        ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    }

    // The common start of the tests that run notify_add tasks: configure them (16 tasks), connect,
    // start, and deliver the RUNNING transition.
    void start_with_notify_add(doca_sync_event_task_notify_add_completion_cb_t ok,
                               doca_sync_event_task_notify_add_completion_cb_t err) {
        ASSERT_EQ(doca_sync_event_task_notify_add_set_conf(event, ok, err, 16), DOCA_SUCCESS);
        connect_and_start();
        progress_all(pe);
    }
};

} // namespace skiff::test
