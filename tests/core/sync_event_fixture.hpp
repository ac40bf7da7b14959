// A started sync event with a DPU publisher and subscriber, for the sync event tests.
#pragma once

#include <doca_sync_event.h>

#include <gtest/gtest.h>

namespace skiff::test {

struct StartedSyncEvent : ::testing::Test {
    doca_sync_event *event = nullptr;
    void SetUp() override {
        ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
        ASSERT_EQ(doca_sync_event_add_publisher_location_dpu(event), DOCA_SUCCESS);
        ASSERT_EQ(doca_sync_event_add_subscriber_location_dpu(event), DOCA_SUCCESS);
        ASSERT_EQ(doca_sync_event_start(event), DOCA_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(doca_sync_event_stop(event), DOCA_SUCCESS);
        EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    }
};

} // namespace skiff::test
