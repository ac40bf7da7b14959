// Sync event (spec 5.8 item 49): 64-bit counter with atomic set/add, wait_gt (strictly greater)
// honouring the mask, publishers/subscribers before start, start vs as_ctx exclusive, a CPU waiter
// that sleeps and is woken by an update from another thread.
#include "mmap_fixture.hpp"
#include "sync_event_fixture.hpp"

#include <doca_dev.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using skiff::test::StartedSyncEvent;

} // namespace

TEST(SyncEvent, PublisherAndSubscriberAreNeededAndOnlyBeforeStart) {
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    uint64_t v = 0;
    EXPECT_EQ(doca_sync_event_get(event, &v), DOCA_ERROR_BAD_STATE) << "not started";
    EXPECT_EQ(doca_sync_event_start(event), DOCA_ERROR_INVALID_VALUE) << "no publisher/subscriber";
    ASSERT_EQ(doca_sync_event_add_publisher_location_dpu(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_start(event), DOCA_ERROR_INVALID_VALUE) << "no subscriber";
    ASSERT_EQ(doca_sync_event_add_subscriber_location_dpu(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_publisher_location_cpu(event, nullptr), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_sync_event_start(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_start(event), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_sync_event_add_publisher_location_dpu(event), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_sync_event_add_subscriber_location_dpu(event), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_sync_event_as_ctx(event), nullptr) << "started standalone: never a ctx";
    EXPECT_EQ(doca_sync_event_stop(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
}

TEST(SyncEvent, UsedAsCtxItCannotBeStartedStandalone) {
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_dpu(event), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_dpu(event), DOCA_SUCCESS);
    ASSERT_NE(doca_sync_event_as_ctx(event), nullptr);
    EXPECT_EQ(doca_sync_event_start(event), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
}

// DPA locations are accepted (the DPA module reaches the event through its DPA handle, tested in
// dpa_*_test.cpp); GPU locations are not supported.
TEST(SyncEvent, DpaLocationsAreAcceptedGpuLocationsAreNotSupported) {
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    auto *fake_dpa = reinterpret_cast<doca_dpa *>(event); // only recorded, never dereferenced
    auto *fake_gpu = reinterpret_cast<doca_gpu *>(event);
    EXPECT_EQ(doca_sync_event_add_publisher_location_dpa(event, fake_dpa), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_subscriber_location_gpu(event, fake_gpu), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_sync_event_add_publisher_location_dpa(event, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
}

TEST_F(StartedSyncEvent, SetAndAddAreSixtyFourBitAndAddReturnsThePreviousValue) {
    ASSERT_EQ(doca_sync_event_update_set(event, UINT64_C(0x1'0000'0000)), DOCA_SUCCESS);
    uint64_t before = 0, now = 0;
    ASSERT_EQ(doca_sync_event_update_add(event, 5, &before), DOCA_SUCCESS);
    EXPECT_EQ(before, UINT64_C(0x1'0000'0000));
    ASSERT_EQ(doca_sync_event_get(event, &now), DOCA_SUCCESS);
    EXPECT_EQ(now, UINT64_C(0x1'0000'0005));
    EXPECT_EQ(doca_sync_event_update_add(event, 1, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(StartedSyncEvent, ConcurrentAddsAreAtomic) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            uint64_t fetched = 0;
            for (int i = 0; i < 10000; ++i) doca_sync_event_update_add(event, 1, &fetched);
        });
    for (auto &t : threads) t.join();
    uint64_t now = 0;
    ASSERT_EQ(doca_sync_event_get(event, &now), DOCA_SUCCESS);
    EXPECT_EQ(now, 40000u);
}

TEST_F(StartedSyncEvent, WaitMaskMustBeAnAlignedRunOfFFBytes) {
    ASSERT_EQ(doca_sync_event_update_set(event, UINT64_MAX), DOCA_SUCCESS);
    for (uint64_t ok : {UINT64_C(0), UINT64_C(0xFF), UINT64_C(0xFF00), UINT64_C(0xFFFF), UINT64_C(0xFFFF0000),
                        UINT64_C(0xFFFFFFFF), UINT64_C(0xFFFFFFFF00000000), UINT64_MAX})
        EXPECT_EQ(doca_sync_event_wait_gt(event, 0, ok), DOCA_SUCCESS) << std::hex << ok;
    for (uint64_t bad : {UINT64_C(0x1), UINT64_C(0xF0), UINT64_C(0xFFF), UINT64_C(0xFF0), UINT64_C(0xFFFF00),
                         UINT64_C(0xFFFFFF), UINT64_C(0xFF00FF)})
        EXPECT_EQ(doca_sync_event_wait_gt(event, 0, bad), DOCA_ERROR_INVALID_VALUE) << std::hex << bad;
}

TEST_F(StartedSyncEvent, WaitIsStrictlyGreaterAfterMasking) {
    // 0x0102: low byte 0x02, second byte 0x01.
    ASSERT_EQ(doca_sync_event_update_set(event, 0x0102), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_gt(event, 0x01, 0xFF), DOCA_SUCCESS);     // 0x02 > 0x01 returns at once
    EXPECT_EQ(doca_sync_event_wait_gt(event, 0x00FF, 0xFF00), DOCA_SUCCESS); // 0x0100 > 0x00FF

    // 0x02 > 0x02 is false: the waiter must still be blocked until a writer moves the low byte.
    std::atomic<bool> returned{false};
    std::thread waiter([&] {
        EXPECT_EQ(doca_sync_event_wait_gt(event, 0x02, 0xFF), DOCA_SUCCESS);
        returned = true;
    });
    ASSERT_EQ(doca_sync_event_update_set(event, 0xFF02), DOCA_SUCCESS); // other bytes change only
    EXPECT_FALSE(returned.load()) << "(0xFF02 & 0xFF) == 0x02 is not greater than 0x02";
    ASSERT_EQ(doca_sync_event_update_set(event, 0x0003), DOCA_SUCCESS);
    waiter.join();
    EXPECT_TRUE(returned.load());
}

TEST_F(StartedSyncEvent, SleepingWaiterIsWokenByAnUpdateFromAnotherThread) {
    std::atomic<int> phase{0};
    std::thread waiter([&] {
        phase = 1;
        EXPECT_EQ(doca_sync_event_wait_gt(event, 41, UINT64_MAX), DOCA_SUCCESS);
        uint64_t v = 0;
        doca_sync_event_get(event, &v);
        EXPECT_EQ(v, 42u);
        phase = 2;
    });
    while (phase.load() == 0) std::this_thread::yield();
    ASSERT_EQ(doca_sync_event_update_set(event, 41), DOCA_SUCCESS);
    EXPECT_NE(phase.load(), 2);
    uint64_t fetched = 0;
    ASSERT_EQ(doca_sync_event_update_add(event, 1, &fetched), DOCA_SUCCESS);
    waiter.join();
    EXPECT_EQ(phase.load(), 2);
}

TEST(SyncEvent, ExternalAddressHoldsTheCounter) {
    alignas(8) uint64_t word = 7;
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_set_addr(event, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(
        doca_sync_event_set_addr(event, reinterpret_cast<uint64_t *>(reinterpret_cast<char *>(&word) + 1)),
        DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_sync_event_set_addr(event, &word), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_publisher_location_dpu(event), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_add_subscriber_location_dpu(event), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(event), DOCA_SUCCESS);
    uint64_t v = 0;
    ASSERT_EQ(doca_sync_event_get(event, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 7u);
    ASSERT_EQ(doca_sync_event_update_set(event, 9), DOCA_SUCCESS);
    EXPECT_EQ(word, 9u);
    EXPECT_EQ(doca_sync_event_stop(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
}

TEST(SyncEvent, WaitTaskWithABadMaskIsRefusedAtAllocation) {
    doca_pe *pe = nullptr;
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    auto cb = [](doca_sync_event_task_wait_gt *t, doca_data, doca_data) {
        doca_task_free(doca_sync_event_task_wait_gt_as_doca_task(t));
    };
    ASSERT_EQ(doca_sync_event_task_wait_gt_set_conf(event, cb, cb, 2), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    doca_sync_event_task_wait_gt *task = nullptr;
    EXPECT_EQ(doca_sync_event_task_wait_gt_alloc_init(event, 1, 0xF0, {}, &task), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_sync_event_task_wait_gt_alloc_init(event, 1, 0xFF, {}, &task), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_task_wait_gt_get_mask(task), 0xFFu);
    EXPECT_EQ(doca_sync_event_task_wait_gt_get_wait_val(task), 1u);
    doca_task_free(doca_sync_event_task_wait_gt_as_doca_task(task));
    ASSERT_EQ(doca_ctx_stop(doca_sync_event_as_ctx(event)), DOCA_SUCCESS);
    while (doca_pe_progress(pe)) {
    }
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST(SyncEvent, WaitTaskWakesAnEpollSleeperWhenAnotherThreadPublishes) {
    doca_pe *pe = nullptr;
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    static int satisfied = 0;
    satisfied = 0;
    auto ok = [](doca_sync_event_task_wait_gt *t, doca_data, doca_data) {
        ++satisfied;
        doca_task_free(doca_sync_event_task_wait_gt_as_doca_task(t));
    };
    auto err = [](doca_sync_event_task_wait_gt *t, doca_data, doca_data) {
        ADD_FAILURE() << "wait task failed";
        doca_task_free(doca_sync_event_task_wait_gt_as_doca_task(t));
    };
    ASSERT_EQ(doca_sync_event_task_wait_gt_set_conf(event, ok, err, 1), DOCA_SUCCESS);
    doca_ctx *ctx = doca_sync_event_as_ctx(event);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    while (doca_pe_progress(pe)) {
    }
    doca_sync_event_task_wait_gt *task = nullptr;
    ASSERT_EQ(doca_sync_event_task_wait_gt_alloc_init(event, 2, 0xFF, {}, &task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_wait_gt_as_doca_task(task)), DOCA_SUCCESS);

    doca_notification_handle_t fd = -1;
    ASSERT_EQ(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
    int epfd = epoll_create1(0);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ASSERT_EQ(epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev), 0);
    std::thread publisher([&] {
        uint64_t fetched = 0;
        for (int i = 0; i < 3; ++i) doca_sync_event_update_add(event, 1, &fetched); // 1, 2, 3
    });
    // Sleep on the fd until the counter passes 2; wake-ups before that are spurious and re-armed.
    while (satisfied == 0) {
        ASSERT_EQ(doca_pe_request_notification(pe), DOCA_SUCCESS);
        epoll_event got{};
        ASSERT_EQ(epoll_wait(epfd, &got, 1, 30000), 1) << "the publisher's update never woke the engine";
        ASSERT_EQ(doca_pe_clear_notification(pe, fd), DOCA_SUCCESS);
        while (doca_pe_progress(pe)) {
        }
    }
    publisher.join();
    uint64_t v = 0;
    ASSERT_EQ(doca_sync_event_get(event, &v), DOCA_SUCCESS);
    EXPECT_GT(v, 2u);
    EXPECT_EQ(satisfied, 1);
    close(epfd);
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    while (doca_pe_progress(pe)) {
    }
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST(SyncEvent, EveryDeviceSupportsTheTasks) {
    doca_dev *dev = skiff::test::open_dpu_p0();
    ASSERT_NE(dev, nullptr);
    doca_devinfo *info = doca_dev_as_devinfo(dev);
    EXPECT_EQ(doca_sync_event_cap_task_get_is_supported(info), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_cap_task_notify_set_is_supported(info), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_cap_task_notify_add_is_supported(info), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_cap_task_wait_gt_is_supported(info), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_cap_task_wait_gt_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);

    // A CPU location takes a real device.
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_publisher_location_cpu(event, dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_subscriber_location_cpu(event, dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_start(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_stop(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}
