// The progress engine (spec 5.5 items 33, 35, 39, 40): progress return values, callbacks only
// inside progress on the caller's thread, re-entrancy refused, notification mode through epoll,
// several PEs on one thread.
#include "pe_support.hpp"

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <thread>
#include <vector>

using skiff::test::progress_all;
using skiff::test::SyncCtxFixture;

namespace {

struct AddTasks : SyncCtxFixture {
    static inline AddTasks *self = nullptr;
    int completed = 0;
    uint8_t nested_progress_result = 0xFF;
    bool call_progress_inside = false;
    std::vector<std::thread::id> threads;
    uint64_t fetched = 0;

    static void ok_cb(doca_sync_event_task_notify_add *task, doca_data, doca_data) {
        ++self->completed;
        self->threads.push_back(std::this_thread::get_id());
        if (self->call_progress_inside) self->nested_progress_result = doca_pe_progress(self->pe);
        doca_task_free(doca_sync_event_task_notify_add_as_doca_task(task));
    }
    static void err_cb(doca_sync_event_task_notify_add *task, doca_data, doca_data) {
        ADD_FAILURE() << "unexpected error "
                      << doca_task_get_status(doca_sync_event_task_notify_add_as_doca_task(task));
        doca_task_free(doca_sync_event_task_notify_add_as_doca_task(task));
    }

    void SetUp() override {
        SyncCtxFixture::SetUp();
        self = this;
        start_with_notify_add(ok_cb, err_cb);
    }

    void submit_add(uint64_t inc) {
        doca_sync_event_task_notify_add *task = nullptr;
        ASSERT_EQ(doca_sync_event_task_notify_add_alloc_init(event, inc, &fetched, {}, &task), DOCA_SUCCESS);
        ASSERT_EQ(doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(task)), DOCA_SUCCESS);
    }
};

// Readable right now? (epoll with a zero timeout: a state check, not a timing assertion.)
bool readable(int epfd) {
    epoll_event ev{};
    return epoll_wait(epfd, &ev, 1, 0) == 1;
}

} // namespace

TEST_F(AddTasks, ProgressReturnsOneForEachUnitOfWorkAndZeroWhenIdle) {
    EXPECT_EQ(doca_pe_progress(pe), 0);
    submit_add(1);
    submit_add(2);
    size_t inflight = 0;
    ASSERT_EQ(doca_pe_get_num_inflight_tasks(pe, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 2u);
    EXPECT_EQ(completed, 0) << "callbacks never run inside submit";
    EXPECT_EQ(doca_pe_progress(pe), 1);
    EXPECT_EQ(completed, 1) << "one completion per progress call";
    EXPECT_EQ(doca_pe_progress(pe), 1);
    EXPECT_EQ(doca_pe_progress(pe), 0);
    EXPECT_EQ(completed, 2);
    uint64_t value = 0;
    ASSERT_EQ(doca_sync_event_get(event, &value), DOCA_SUCCESS);
    EXPECT_EQ(value, 3u);
    ASSERT_EQ(doca_pe_get_num_inflight_tasks(pe, &inflight), DOCA_SUCCESS);
    EXPECT_EQ(inflight, 0u);
}

TEST_F(AddTasks, CallbacksRunOnTheProgressingThread) {
    submit_add(1);
    std::thread other([&] { progress_all(pe); });
    other.join();
    ASSERT_EQ(threads.size(), 1u);
    EXPECT_NE(threads[0], std::this_thread::get_id());
    submit_add(1);
    progress_all(pe);
    ASSERT_EQ(threads.size(), 2u);
    EXPECT_EQ(threads[1], std::this_thread::get_id());
}

TEST_F(AddTasks, ProgressFromInsideACallbackIsRefused) {
    call_progress_inside = true;
    submit_add(1);
    submit_add(1);
    EXPECT_EQ(doca_pe_progress(pe), 1);
    EXPECT_EQ(nested_progress_result, 0);
    EXPECT_EQ(completed, 1) << "the nested call must not have delivered the second completion";
    call_progress_inside = false;
    EXPECT_EQ(doca_pe_progress(pe), 1);
    EXPECT_EQ(completed, 2);
}

TEST_F(AddTasks, NotificationHandleIsConstantAndWakesEpollOnlyWhenArmed) {
    doca_notification_handle_t fd = -1, again = -2;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &again), DOCA_SUCCESS);
    EXPECT_EQ(fd, again);
    ASSERT_GE(fd, 0);
    int epfd = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);

    // Not armed: work arrives, no wake-up.
    submit_add(1);
    EXPECT_FALSE(readable(epfd));
    progress_all(pe);

    // Armed, then work arrives: readable.
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    EXPECT_FALSE(readable(epfd));
    submit_add(1);
    EXPECT_TRUE(readable(epfd));
    ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
    EXPECT_FALSE(readable(epfd)) << "clear resets the handle";
    EXPECT_EQ(progress_all(pe), 1);

    // Armed while work is already waiting: readable at once.
    submit_add(1);
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    EXPECT_TRUE(readable(epfd));
    ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
    EXPECT_EQ(progress_all(pe), 1);
    EXPECT_EQ(doca_pe_clear_notification(pe, fd + 1000), DOCA_ERROR_INVALID_VALUE);
    close(epfd);
}

TEST_F(AddTasks, ClearNotificationTakesZeroAsDocaSamplesPass) {
    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    ASSERT_NE(fd, 0);
    int epfd = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    submit_add(1);
    ASSERT_TRUE(readable(epfd));
    ASSERT_EQ(doca_pe_clear_notification(pe, 0), DOCA_SUCCESS);
    EXPECT_FALSE(readable(epfd)) << "0 clears this engine's handle";
    EXPECT_EQ(progress_all(pe), 1);
    close(epfd);
}

TEST_F(AddTasks, SpuriousWakeUpIsTolerated) {
    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    int epfd = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);
    ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
    // A counter update may satisfy some wait task, so it wakes the engine; here nothing waits.
    ASSERT_EQ(doca_sync_event_update_set(event, 5), DOCA_SUCCESS);
    EXPECT_TRUE(readable(epfd));
    ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_progress(pe), 0);
    close(epfd);
}

TEST(ProgressEngine, SeveralEnginesOnOneThreadEachDeliverOnlyTheirOwnCtx) {
    doca_pe *high = nullptr, *low = nullptr;
    ASSERT_EQ(doca_pe_create(&high), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_create(&low), DOCA_SUCCESS);
    doca_sync_event *a = nullptr, *b = nullptr;
    ASSERT_EQ(doca_sync_event_create(&a), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_create(&b), DOCA_SUCCESS);
    static int done_a, done_b;
    done_a = done_b = 0;
    auto ok_a = [](doca_sync_event_task_notify_set *t, doca_data, doca_data) {
        ++done_a;
        doca_task_free(doca_sync_event_task_notify_set_as_doca_task(t));
    };
    auto ok_b = [](doca_sync_event_task_notify_set *t, doca_data, doca_data) {
        ++done_b;
        doca_task_free(doca_sync_event_task_notify_set_as_doca_task(t));
    };
    ASSERT_EQ(doca_sync_event_task_notify_set_set_conf(a, ok_a, ok_a, 4), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_task_notify_set_set_conf(b, ok_b, ok_b, 4), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(high, doca_sync_event_as_ctx(a)), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(low, doca_sync_event_as_ctx(b)), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(doca_sync_event_as_ctx(a)), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(doca_sync_event_as_ctx(b)), DOCA_SUCCESS);
    progress_all(high);
    progress_all(low);
    for (auto [ev, pe] : {std::pair{a, high}, std::pair{b, low}}) {
        doca_sync_event_task_notify_set *task = nullptr;
        ASSERT_EQ(doca_sync_event_task_notify_set_alloc_init(ev, 1, {}, &task), DOCA_SUCCESS);
        ASSERT_EQ(doca_task_submit(doca_sync_event_task_notify_set_as_doca_task(task)), DOCA_SUCCESS);
    }
    progress_all(high);
    EXPECT_EQ(done_a, 1);
    EXPECT_EQ(done_b, 0);
    progress_all(low);
    EXPECT_EQ(done_b, 1);
    for (auto [ev, pe] : {std::pair{a, high}, std::pair{b, low}}) {
        EXPECT_EQ(doca_ctx_stop(doca_sync_event_as_ctx(ev)), DOCA_SUCCESS);
        progress_all(pe);
        EXPECT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    }
}
