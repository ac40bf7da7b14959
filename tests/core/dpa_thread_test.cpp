// DPA threads, completion contexts and notification completions (spec 1.19.6-1.19.8; checklist
// 5.9 items 52-55): run ordering, reschedule vs finish, activation only when a completion arrives
// on an armed context, completions not populated without request_notification, notification
// without a completion, queue-size overflow, polled contexts, EU affinity, thread groups, local
// storage, extended contexts and doca_dpa_dev_device_set.
#include "dpa_support.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

namespace {

using skiff::test::dpa_fn;
using skiff::test::eventually;

// What a thread function sees; lives in host memory the (emulated) DPA reads directly.
struct ThreadState {
    doca_dpa_dev_completion_t comp = 0;
    doca_dpa_dev_t device = 0; // non-zero: call doca_dpa_dev_device_set first
    bool finish = false;
    bool rearm = true;
    std::atomic<int> runs{0};
    std::atomic<int> completions{0};
    std::atomic<int> empty_runs{0}; // runs that found no completion
    std::atomic<uint32_t> last_type{0}, last_user_data{0}, last_immediate{0};
    char eu_name[16] = {};
};

// The canonical completion-driven thread: get -> type/user data -> ack -> request_notification ->
// reschedule (or finish).
void comp_thread(uint64_t arg) {
    auto *s = reinterpret_cast<ThreadState *>(arg);
    if (s->device) doca_dpa_dev_device_set(s->device);
    pthread_getname_np(pthread_self(), s->eu_name, sizeof(s->eu_name));
    int got = 0;
    if (s->comp) {
        doca_dpa_dev_completion_element_t e;
        while (doca_dpa_dev_get_completion(s->comp, &e)) {
            s->last_type = doca_dpa_dev_get_completion_type(e);
            s->last_user_data = doca_dpa_dev_get_completion_user_data(e);
            s->last_immediate = doca_dpa_dev_get_completion_immediate(e);
            ++got;
        }
        if (got) doca_dpa_dev_completion_ack(s->comp, got);
        if (s->rearm) doca_dpa_dev_completion_request_notification(s->comp);
    }
    s->completions.fetch_add(got);
    if (got == 0) s->empty_runs.fetch_add(1);
    s->runs.fetch_add(1); // last: a host seeing the count sees everything above
    if (s->finish)
        doca_dpa_dev_thread_finish();
    else
        doca_dpa_dev_thread_reschedule();
}

// RPCs the host uses to act on a completion context from device code.
uint64_t arm_rpc(uint64_t comp, uint64_t device) {
    if (device) doca_dpa_dev_device_set(device);
    doca_dpa_dev_completion_request_notification(comp);
    return 0;
}

uint64_t poll_rpc(uint64_t comp, uint64_t ack) {
    doca_dpa_dev_completion_element_t e;
    uint64_t n = 0;
    while (doca_dpa_dev_get_completion(comp, &e)) ++n;
    if (ack && n) doca_dpa_dev_completion_ack(comp, n);
    return n;
}

uint64_t notify_rpc(uint64_t nc) {
    doca_dpa_dev_thread_notify(nc);
    return 0;
}

std::atomic<uint64_t> g_tls_seen{0};

void tls_thread(uint64_t) {
    g_tls_seen = *reinterpret_cast<uint64_t *>(doca_dpa_dev_thread_get_local_storage());
    doca_dpa_dev_thread_reschedule();
}

// Never returns by itself, as NVIDIA's dpa_ping_pong thread: every run ends inside the loop, in
// doca_dpa_dev_thread_reschedule (odd passes) or doca_dpa_dev_thread_finish (the fourth pass).
std::atomic<int> g_loop_passes{0};

void endless_thread(uint64_t) {
    for (;;) {
        int pass = ++g_loop_passes;
        if (pass >= 4) doca_dpa_dev_thread_finish();
        if (pass % 2 == 1) doca_dpa_dev_thread_reschedule();
        if (pass > 100) return; // they returned: end the test's loop instead of spinning forever
    }
}

struct DpaThread : skiff::test::DpaTest {
    void SetUp() override {
        DpaTest::SetUp();
        kernel(&comp_thread, 1, "comp_thread");
        kernel(&endless_thread, 1, "endless_thread");
        kernel(&tls_thread, 1, "tls_thread");
        rpc(&arm_rpc, 2, "arm_rpc");
        rpc(&poll_rpc, 2, "poll_rpc");
        rpc(&notify_rpc, 1, "notify_rpc");
        start();
    }

    doca_dpa_thread *make_thread(ThreadState &s, doca_dpa *on = nullptr, doca_dpa_func_t *f = nullptr) {
        doca_dpa_thread *t = nullptr;
        EXPECT_EQ(doca_dpa_thread_create(on ? on : dpa, &t), DOCA_SUCCESS);
        EXPECT_EQ(
            doca_dpa_thread_set_func_arg(t, f ? f : dpa_fn(&comp_thread), reinterpret_cast<uint64_t>(&s)),
            DOCA_SUCCESS);
        EXPECT_EQ(doca_dpa_thread_start(t), DOCA_SUCCESS);
        return t;
    }
    doca_dpa_completion *make_comp(doca_dpa_thread *t, unsigned size, doca_dpa *on = nullptr) {
        doca_dpa_completion *c = nullptr;
        EXPECT_EQ(doca_dpa_completion_create(on ? on : dpa, size, &c), DOCA_SUCCESS);
        if (t) {
            EXPECT_EQ(doca_dpa_completion_set_thread(c, t), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dpa_completion_start(c), DOCA_SUCCESS);
        return c;
    }
    doca_dpa_dev_completion_t handle(doca_dpa_completion *c) {
        doca_dpa_dev_completion_t h = 0;
        EXPECT_EQ(doca_dpa_completion_get_dpa_handle(c, &h), DOCA_SUCCESS);
        return h;
    }
    doca_dpa_notification_completion *make_notify(doca_dpa_thread *t) {
        doca_dpa_notification_completion *nc = nullptr;
        EXPECT_EQ(doca_dpa_notification_completion_create(dpa, t, &nc), DOCA_SUCCESS);
        EXPECT_EQ(doca_dpa_notification_completion_start(nc), DOCA_SUCCESS);
        return nc;
    }
    uint64_t nc_handle(doca_dpa_notification_completion *nc) {
        doca_dpa_dev_notification_completion_t h = 0;
        EXPECT_EQ(doca_dpa_notification_completion_get_dpa_handle(nc, &h), DOCA_SUCCESS);
        return h;
    }
    uint64_t call(doca_dpa_func_t *f, uint64_t a, uint64_t b) {
        uint64_t r = 0;
        EXPECT_EQ(doca_dpa_rpc(dpa, f, &r, a, b), DOCA_SUCCESS);
        return r;
    }
    void teardown(doca_dpa_thread *t, doca_dpa_completion *c) {
        EXPECT_EQ(doca_dpa_thread_stop(t), DOCA_SUCCESS);
        if (c) {
            EXPECT_EQ(doca_dpa_completion_stop(c), DOCA_SUCCESS);
            EXPECT_EQ(doca_dpa_completion_destroy(c), DOCA_SUCCESS);
        }
        EXPECT_EQ(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
    }
};

} // namespace

TEST_F(DpaThread, RunNeedsAStartedThreadAndStartedCompletionContexts) {
    ThreadState s;
    doca_dpa_thread *t = nullptr;
    ASSERT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_run(t), DOCA_ERROR_BAD_STATE) << "not started";
    EXPECT_EQ(doca_dpa_thread_start(t), DOCA_ERROR_BAD_STATE) << "no function";
    EXPECT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&arm_rpc), 0), DOCA_ERROR_INVALID_VALUE) << "an RPC";
    ASSERT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&comp_thread), reinterpret_cast<uint64_t>(&s)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_start(t), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&comp_thread), 0), DOCA_ERROR_BAD_STATE)
        << "after start";
    doca_dpa_completion *c = nullptr;
    ASSERT_EQ(doca_dpa_completion_create(dpa, 8, &c), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_completion_set_thread(c, t), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_run(t), DOCA_ERROR_BAD_STATE) << "its completion context is not started";
    ASSERT_EQ(doca_dpa_completion_start(c), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    EXPECT_EQ(s.runs.load(), 0) << "run alone does not trigger the thread";
    teardown(t, c);
}

TEST_F(DpaThread, CompletionsTriggerOnlyAnArmedContextAndArePopulatedOnlyThen) {
    ThreadState s;
    doca_dpa_thread *t = make_thread(s);
    doca_dpa_completion *c = make_comp(t, 16);
    s.comp = handle(c);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);

    // Not armed: the completion is neither delivered nor populated.
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_RECV_SEND_IMM, 7, 0xabc), DOCA_SUCCESS);
    EXPECT_EQ(s.runs.load(), 0);
    EXPECT_EQ(call(dpa_fn(&poll_rpc), s.comp, 0), 0u) << "not populated before request_notification";

    // Arming populates it and triggers the thread once.
    call(dpa_fn(&arm_rpc), s.comp, 0);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    EXPECT_EQ(s.last_type.load(), uint32_t{DOCA_DPA_DEV_COMP_RECV_SEND_IMM});
    EXPECT_EQ(s.last_user_data.load(), 7u);
    EXPECT_EQ(s.last_immediate.load(), 0xabcu);

    // The thread re-armed and rescheduled: each new completion runs it again.
    for (uint32_t i = 0; i < 20; ++i) {
        ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, i, 0), DOCA_SUCCESS);
        ASSERT_TRUE(eventually([&] { return s.completions.load() == static_cast<int>(i) + 2; }));
    }
    EXPECT_EQ(s.last_user_data.load(), 19u);
    teardown(t, c);
}

// SKIFF_DPA_COMPLETIONS=hardware (ctest runs this as dpa-hw.*, with it set): a started context is
// armed, so its first completion runs the thread with no request_notification, and completions are
// populated whether or not it is armed; arming decides only about triggering.
TEST_F(DpaThread, HardwareCompletionsStartArmedAndArePopulatedUnarmed) {
    const char *mode = std::getenv("SKIFF_DPA_COMPLETIONS");
    if (mode == nullptr || std::string(mode) != "hardware")
        GTEST_SKIP() << "needs SKIFF_DPA_COMPLETIONS=hardware";
    ThreadState s;
    s.rearm = false;
    doca_dpa_thread *t = make_thread(s);
    doca_dpa_completion *c = make_comp(t, 16);
    s.comp = handle(c);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 1, 0), DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; })) << "the first completion ran nothing";
    // Not re-armed: no trigger, but the completions are there for whoever polls.
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 2, 0), DOCA_SUCCESS);
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 3, 0), DOCA_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(s.runs.load(), 1);
    EXPECT_EQ(call(dpa_fn(&poll_rpc), s.comp, 1), 2u) << "populated without request_notification";
    teardown(t, c);
}

TEST_F(DpaThread, RescheduleKeepsTheThreadFinishEndsIt) {
    ThreadState again, once;
    once.finish = true;
    // Both on EU 0: its run queue is FIFO, so once `again` ran for round i, `once` was offered round i too.
    doca_dpa_eu_affinity *eu0 = nullptr;
    ASSERT_EQ(doca_dpa_eu_affinity_create(dpa, &eu0), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_eu_affinity_set(eu0, 0), DOCA_SUCCESS);
    doca_dpa_thread *t1 = nullptr, *t2 = nullptr;
    for (auto [t, s] : {std::pair{&t1, &again}, std::pair{&t2, &once}}) {
        ASSERT_EQ(doca_dpa_thread_create(dpa, t), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_set_func_arg(*t, dpa_fn(&comp_thread), reinterpret_cast<uint64_t>(s)),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_set_affinity(*t, eu0), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_start(*t), DOCA_SUCCESS);
    }
    ASSERT_EQ(doca_dpa_eu_affinity_destroy(eu0), DOCA_SUCCESS);
    auto *n1 = make_notify(t1);
    auto *n2 = make_notify(t2);
    ASSERT_EQ(doca_dpa_thread_run(t1), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_run(t2), DOCA_SUCCESS);
    for (int i = 1; i <= 5; ++i) {
        call(dpa_fn(&notify_rpc), nc_handle(n2), 0);
        call(dpa_fn(&notify_rpc), nc_handle(n1), 0);
        ASSERT_TRUE(eventually([&] { return again.runs.load() == i; }));
        EXPECT_EQ(once.runs.load(), 1);
    }
    // A notification only wakes its own thread: once and again ran in lock step until `once` finished.
    EXPECT_EQ(once.runs.load(), 1) << "a finished thread is never triggered again";
    for (auto *nc : {n1, n2}) {
        EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
        EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    }
    teardown(t1, nullptr);
    teardown(t2, nullptr);
}

// A notification runs the thread with no completion: get_completion finds nothing.
TEST_F(DpaThread, NotificationWithoutCompletion) {
    ThreadState s;
    doca_dpa_thread *t = make_thread(s);
    doca_dpa_completion *c = make_comp(t, 4);
    s.comp = handle(c);
    auto *nc = make_notify(t);
    doca_dpa_thread *owner = nullptr;
    ASSERT_EQ(doca_dpa_notification_completion_get_thread(nc, &owner), DOCA_SUCCESS);
    EXPECT_EQ(owner, t);
    // Triggered before run: remembered and replayed by run.
    call(dpa_fn(&notify_rpc), nc_handle(nc), 0);
    EXPECT_EQ(s.runs.load(), 0);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return s.runs.load() == 1; }));
    EXPECT_EQ(s.empty_runs.load(), 1);
    EXPECT_EQ(s.completions.load(), 0);
    EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    teardown(t, c);
}

TEST_F(DpaThread, RescheduleAndFinishEndTheRunWhereTheyAreCalled) {
    ThreadState s;
    g_loop_passes = 0;
    doca_dpa_thread *t = make_thread(s, nullptr, dpa_fn(&endless_thread));
    doca_dpa_completion *c = make_comp(t, 4);
    auto *nc = make_notify(t);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    // Run 1: pass 1 reschedules. Run 2: pass 2 goes on, pass 3 reschedules. Run 3: pass 4 finishes.
    const int after_run[] = {1, 3, 4};
    for (int want : after_run) {
        call(dpa_fn(&notify_rpc), nc_handle(nc), 0);
        ASSERT_TRUE(eventually([&] { return g_loop_passes.load() >= want; }));
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // an over-run would show by now
        EXPECT_EQ(g_loop_passes.load(), want) << "the run went on past reschedule or finish";
    }
    // Finished: a notification no longer runs it.
    call(dpa_fn(&notify_rpc), nc_handle(nc), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(g_loop_passes.load(), 4);
    EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    teardown(t, c);
}

TEST_F(DpaThread, AnUnattachedContextIsPolledAndAckFreesSlots) {
    doca_dpa_completion *c = make_comp(nullptr, 4);
    uint64_t h = handle(c);
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, i, 0), DOCA_SUCCESS);
    EXPECT_EQ(call(dpa_fn(&poll_rpc), h, 0), 4u) << "polled use: populated at once";
    EXPECT_EQ(call(dpa_fn(&poll_rpc), h, 1), 0u);
    // The four were read but not acked: still no room... ack them, then four more fit.
    EXPECT_EQ(call(dpa_fn(&poll_rpc), h, 0), 0u);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_stop(c), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_destroy(c), DOCA_SUCCESS);
}

TEST_F(DpaThread, QueueSizeOverflowIsDetected) {
    doca_dpa_completion *c = make_comp(nullptr, 4);
    uint64_t h = handle(c);
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, i, 0), DOCA_SUCCESS);
    EXPECT_EQ(call(dpa_fn(&poll_rpc), h, 1), 4u);
    // Acked: four more fit.
    for (int i = 0; i < 4; ++i)
        ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, i, 0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    // The fifth un-acked completion overflows the queue.
    EXPECT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 4, 0), DOCA_ERROR_FULL);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_completion_destroy(c), DOCA_SUCCESS) << "a fatal context's objects can be destroyed";
}

TEST_F(DpaThread, AffinityPinsTheThreadToItsEu) {
    doca_dpa_eu_affinity *aff = nullptr;
    ASSERT_EQ(doca_dpa_eu_affinity_create(dpa, &aff), DOCA_SUCCESS);
    unsigned eu = 0;
    EXPECT_EQ(doca_dpa_eu_affinity_get(aff, &eu), DOCA_ERROR_NOT_FOUND);
    EXPECT_EQ(doca_dpa_eu_affinity_set(aff, 256), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_dpa_eu_affinity_set(aff, 11), DOCA_SUCCESS); // 11 % 2 EUs -> worker 1
    ASSERT_EQ(doca_dpa_eu_affinity_get(aff, &eu), DOCA_SUCCESS);
    EXPECT_EQ(eu, 11u);
    ThreadState s;
    doca_dpa_thread *t = nullptr;
    ASSERT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&comp_thread), reinterpret_cast<uint64_t>(&s)),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_set_affinity(t, aff), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_eu_affinity_destroy(aff), DOCA_SUCCESS) << "the thread keeps a copy";
    ASSERT_EQ(doca_dpa_thread_start(t), DOCA_SUCCESS);
    auto *nc = make_notify(t);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    for (int i = 1; i <= 3; ++i) {
        call(dpa_fn(&notify_rpc), nc_handle(nc), 0);
        ASSERT_TRUE(eventually([&] { return s.runs.load() == i; }));
        EXPECT_STREQ(s.eu_name, "dpa-eu1");
    }
    EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    teardown(t, nullptr);
}

// DOCA programs destroy started objects in their cleanup (NVIDIA's dpa_ping_pong destroys its
// completion contexts, then its threads, with no stop): destroy stops them first, unless a thread
// that may still run would read the context.
TEST_F(DpaThread, DestroyStopsAStartedCompletionContextAndThread) {
    ThreadState s;
    doca_dpa_thread *t = make_thread(s);
    doca_dpa_completion *c = make_comp(t, 4);
    s.comp = handle(c);
    s.finish = true;
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_destroy(c), DOCA_ERROR_BAD_STATE) << "its thread can still run";
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 1, 0), DOCA_SUCCESS);
    call(dpa_fn(&arm_rpc), s.comp, 0);
    ASSERT_TRUE(eventually([&] { return s.runs.load() == 1; }));
    // The run counts itself just before it calls finish: destroy succeeds once the finish is in.
    doca_error_t destroyed = DOCA_ERROR_BAD_STATE;
    for (int i = 0; i < 1000 && (destroyed = doca_dpa_completion_destroy(c)) != DOCA_SUCCESS; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(destroyed, DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
}

TEST_F(DpaThread, ThreadGroupRanksAreChecked) {
    ThreadState s0, s1;
    doca_dpa_thread *t0 = make_thread(s0);
    doca_dpa_thread *t1 = make_thread(s1);
    doca_dpa_thread_group *tg = nullptr;
    ASSERT_EQ(doca_dpa_thread_group_create(dpa, 2, &tg), DOCA_SUCCESS);
    unsigned n = 0;
    ASSERT_EQ(doca_dpa_thread_group_get_num_threads(tg, &n), DOCA_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(doca_dpa_thread_group_set_thread(tg, t0, 2), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_dpa_thread_group_set_thread(tg, t0, 0), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_group_start(tg), DOCA_ERROR_BAD_STATE) << "rank 1 is missing";
    ASSERT_EQ(doca_dpa_thread_group_set_thread(tg, t1, 1), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_group_start(tg), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_group_set_thread(tg, t1, 0), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_thread_destroy(t0), DOCA_ERROR_BAD_STATE);
    ASSERT_EQ(doca_dpa_thread_group_stop(tg), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_group_destroy(tg), DOCA_SUCCESS);
    teardown(t0, nullptr);
    teardown(t1, nullptr);
}

TEST_F(DpaThread, LocalStorageMustBeDpaMemory) {
    doca_dpa_thread *t = nullptr;
    ASSERT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&tls_thread), 0), DOCA_SUCCESS);
    uint64_t host_word = 5;
    EXPECT_EQ(doca_dpa_thread_set_local_storage(t, reinterpret_cast<uint64_t>(&host_word)),
              DOCA_ERROR_INVALID_VALUE);
    doca_dpa_dev_uintptr_t tls = 0;
    ASSERT_EQ(doca_dpa_mem_alloc(dpa, sizeof(uint64_t), &tls), DOCA_SUCCESS);
    uint64_t value = 0x5eed;
    ASSERT_EQ(doca_dpa_h2d_memcpy(dpa, tls, &value, sizeof(value)), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_set_local_storage(t, tls), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_start(t), DOCA_SUCCESS);
    auto *nc = make_notify(t);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    g_tls_seen = 0;
    call(dpa_fn(&notify_rpc), nc_handle(nc), 0);
    ASSERT_TRUE(eventually([&] { return g_tls_seen.load() == 0x5eed; }));
    EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    teardown(t, nullptr);
    EXPECT_EQ(doca_dpa_mem_free(dpa, tls), DOCA_SUCCESS);
}

// Resources of an extended context: thread and completion must share it, and device code must
// select it with doca_dpa_dev_device_set before using them.
TEST_F(DpaThread, ExtendedContextNeedsDeviceSet) {
    doca_dev *sf = skiff::test::open_by_iface("dpu", "en3f0pf0sf0");
    ASSERT_NE(sf, nullptr);
    doca_dpa *ext = nullptr;
    EXPECT_EQ(doca_dpa_device_extend(dpa, dev, &ext), DOCA_ERROR_INVALID_VALUE) << "a PF cannot extend";
    ASSERT_EQ(doca_dpa_device_extend(dpa, sf, &ext), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_destroy(dpa), DOCA_ERROR_IN_USE) << "the extension still exists";

    ThreadState base_state;
    doca_dpa_thread *base_thread = make_thread(base_state);
    doca_dpa_completion *wrong = nullptr;
    ASSERT_EQ(doca_dpa_completion_create(ext, 4, &wrong), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_completion_set_thread(wrong, base_thread), DOCA_ERROR_INVALID_VALUE)
        << "thread and completion context must be on the same extended context";
    ASSERT_EQ(doca_dpa_completion_destroy(wrong), DOCA_SUCCESS);
    teardown(base_thread, nullptr);

    ThreadState s;
    s.device = handle_of(ext);
    doca_dpa_thread *t = make_thread(s, ext);
    doca_dpa_completion *c = make_comp(t, 8, ext);
    s.comp = handle(c);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    call(dpa_fn(&arm_rpc), s.comp, s.device);
    ASSERT_EQ(skiff_dpa_completion_post(c, DOCA_DPA_DEV_COMP_SEND, 3, 0), DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);

    // Without device_set the same call is a device fault.
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&arm_rpc), &r, s.comp, uint64_t{0}), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(ext), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE)
        << "one DPA process: base and extension";
    teardown(t, c);
    EXPECT_EQ(doca_dpa_destroy(ext), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(sf), DOCA_SUCCESS);
}
