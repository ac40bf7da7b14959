// doca_clock (DOCA 3.x, doca_clock.h): which NIC clocks a device has, single readings of every
// clock type, and cross timestamps whose NIC reading brackets the primary one.
#include <doca_clock.h>
#include <doca_dev.h>

#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <ctime>

namespace {

int64_t ns(const timespec &ts) {
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t now_ns(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return ns(ts);
}

struct Clock : ::testing::Test {
    doca_dev *dev = nullptr;
    doca_clock *clock = nullptr;
    void open(doca_dev *d) {
        dev = d;
        ASSERT_NE(dev, nullptr);
        ASSERT_EQ(doca_clock_create(dev, &clock), DOCA_SUCCESS);
    }
    void TearDown() override {
        if (clock) {
            EXPECT_EQ(doca_clock_destroy(clock), DOCA_SUCCESS);
        }
        if (dev) {
            EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        }
    }
};

} // namespace

TEST_F(Clock, EveryDeviceHasTheNicClocksAndOnlyADpaDeviceHasTheDpaTimer) {
    open(skiff::test::open_dpu_p0());
    doca_devinfo *pf = doca_dev_as_devinfo(dev);
    EXPECT_EQ(doca_clock_cap_nic_free_running_is_supported(pf), DOCA_SUCCESS);
    EXPECT_EQ(doca_clock_cap_nic_real_time_is_supported(pf), DOCA_SUCCESS);
    EXPECT_EQ(doca_clock_cap_nic_dpa_timer_is_supported(pf), DOCA_SUCCESS);
    doca_dev *host = skiff::test::open_host_pf0();
    ASSERT_NE(host, nullptr);
    EXPECT_EQ(doca_clock_cap_nic_free_running_is_supported(doca_dev_as_devinfo(host)), DOCA_SUCCESS);
    EXPECT_EQ(doca_clock_cap_nic_dpa_timer_is_supported(doca_dev_as_devinfo(host)), DOCA_ERROR_NOT_SUPPORTED);
    doca_clock *host_clock = nullptr;
    ASSERT_EQ(doca_clock_create(host, &host_clock), DOCA_SUCCESS);
    doca_clock_timespec_t t{};
    EXPECT_EQ(doca_clock_get_timestamp(host_clock, DOCA_CLOCK_NIC_DPA_TIMER, &t), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_clock_get_timestamp(host_clock, DOCA_CLOCK_NIC_REAL_TIME, &t), DOCA_SUCCESS);
    EXPECT_EQ(doca_clock_destroy(host_clock), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(host), DOCA_SUCCESS);
    EXPECT_EQ(doca_clock_cap_nic_real_time_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Clock, EachClockTypeReadsItsHostClock) {
    open(skiff::test::open_dpu_p0());
    doca_clock_timespec_t t{};
    int64_t before = now_ns(CLOCK_REALTIME);
    ASSERT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, &t), DOCA_SUCCESS);
    EXPECT_GE(ns(t.ts), before);
    EXPECT_LE(ns(t.ts), now_ns(CLOCK_REALTIME));
    before = now_ns(CLOCK_MONOTONIC_RAW);
    ASSERT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING, &t), DOCA_SUCCESS);
    EXPECT_GE(ns(t.ts), before);
    EXPECT_LE(ns(t.ts), now_ns(CLOCK_MONOTONIC_RAW));
    before = now_ns(CLOCK_MONOTONIC);
    ASSERT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_MONOTONIC, &t), DOCA_SUCCESS);
    EXPECT_GE(ns(t.ts), before);
    for (uint64_t type : {DOCA_CLOCK_NIC_DPA_TIMER, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_HOST_MONOTONIC_RAW})
        EXPECT_EQ(doca_clock_get_timestamp(clock, type, &t), DOCA_SUCCESS) << type;
    doca_clock_timespec_t first{}, second{};
    ASSERT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &first), DOCA_SUCCESS);
    ASSERT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, &second), DOCA_SUCCESS);
    EXPECT_GE(second.counter, first.counter) << "the CPU's counter never goes back";
    EXPECT_GT(first.counter, 0u);
}

TEST_F(Clock, UnknownOrCombinedTypesAreNotSupported) {
    open(skiff::test::open_dpu_p0());
    doca_clock_timespec_t t{};
    EXPECT_EQ(doca_clock_get_timestamp(clock, 0, &t), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_clock_get_timestamp(clock, 1u << 30, &t), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME, &t),
              DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_clock_get_timestamp(clock, DOCA_CLOCK_NIC_REAL_TIME, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_clock_get_timestamp(nullptr, DOCA_CLOCK_NIC_REAL_TIME, &t), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_clock_create(dev, nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_clock_destroy(nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(Clock, ACrossTimestampBracketsThePrimaryReadingWithTheNicOne) {
    open(skiff::test::open_dpu_p0());
    doca_clock_timespec_t primary{}, nic{};
    uint64_t margin = UINT64_MAX;
    // The NIC's free-running clock and the host's raw monotonic clock are one clock here: the NIC
    // value is the middle of two readings around the primary one, at most the margin away.
    ASSERT_EQ(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_MONOTONIC_RAW, DOCA_CLOCK_NIC_FREE_RUNNING,
                                            &primary, &nic, &margin),
              DOCA_SUCCESS);
    EXPECT_NE(margin, UINT64_MAX);
    int64_t gap = ns(nic.ts) - ns(primary.ts);
    EXPECT_LE(gap < 0 ? -gap : gap, static_cast<int64_t>(margin));
    ASSERT_EQ(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_COUNTER_CYCLES, DOCA_CLOCK_NIC_REAL_TIME,
                                            &primary, &nic, &margin),
              DOCA_SUCCESS);
    EXPECT_GT(primary.counter, 0u);
    EXPECT_GT(nic.ts.tv_sec, 0);
    EXPECT_EQ(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_HOST_MONOTONIC,
                                            &primary, &nic, &margin),
              DOCA_ERROR_NOT_SUPPORTED)
        << "the second clock must be a NIC clock";
    EXPECT_EQ(doca_clock_get_crosstimestamp(clock, DOCA_CLOCK_HOST_REAL_TIME, DOCA_CLOCK_NIC_REAL_TIME,
                                            &primary, &nic, nullptr),
              DOCA_ERROR_INVALID_VALUE);
}
