// Shared pieces of the DPA tests: a started DPA context on the DPU PF p0 with an application whose
// device functions each test registers, started sync events, and bounded waiting for device-side
// effects (a safety net against hangs, never an assertion on time).
#pragma once

#include "mmap_fixture.hpp"

#include <doca_dpa.h>
#include <doca_dpa_dev.h>
#include <doca_sync_event.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <sched.h>
#include <string>
#include <unistd.h>

namespace skiff::test {

// A device function as the host passes it.
template <typename F>
doca_dpa_func_t *dpa_fn(F *f) {
    return reinterpret_cast<doca_dpa_func_t *>(f);
}

// True once pred holds; false after a generous bound (the test then fails instead of hanging).
inline bool eventually(const std::function<bool()> &pred,
                       std::chrono::seconds bound = std::chrono::seconds(60)) {
    auto end = std::chrono::steady_clock::now() + bound;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end) return false;
        sched_yield();
    }
    return true;
}

// A standalone sync event the DPA publishes to and the CPU subscribes to (or both ways).
inline doca_sync_event *make_dpa_event(doca_dpa *dpa, doca_dev *dev) {
    doca_sync_event *ev = nullptr;
    EXPECT_EQ(doca_sync_event_create(&ev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_publisher_location_dpa(ev, dpa), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_start(ev), DOCA_SUCCESS);
    return ev;
}

inline void destroy_event(doca_sync_event *ev) {
    EXPECT_EQ(doca_sync_event_stop(ev), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

inline uint64_t event_value(doca_sync_event *ev) {
    uint64_t v = 0;
    EXPECT_EQ(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
    return v;
}

// Register device functions in SetUp of the derived fixture through kernel()/rpc(), then start().
struct DpaTest : ::testing::Test {
    doca_dev *dev = nullptr;
    doca_dpa_app *app = nullptr;
    doca_dpa *dpa = nullptr;
    std::filesystem::path dir; // per-test scratch folder (log / trace / crash files)

    void SetUp() override {
        dev = open_dpu_p0();
        ASSERT_NE(dev, nullptr);
        ASSERT_EQ(skiff_dpa_app_create("dpa_test", &app), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_create(dev, &dpa), DOCA_SUCCESS);
        ASSERT_EQ(skiff_dpa_set_num_eus(dpa, 2), DOCA_SUCCESS);
        dir = std::filesystem::temp_directory_path() /
              ("skiff-dpa-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::create_directories(dir);
        ASSERT_EQ(doca_dpa_log_file_set_path(dpa, (dir / "dpa.log").c_str()), DOCA_SUCCESS);
    }
    template <typename F>
    void kernel(F *f, unsigned num_args, const char *name) {
        ASSERT_EQ(skiff_dpa_app_add_kernel(app, dpa_fn(f), num_args, name), DOCA_SUCCESS);
    }
    template <typename F>
    void rpc(F *f, unsigned num_args, const char *name) {
        ASSERT_EQ(skiff_dpa_app_add_rpc(app, dpa_fn(f), num_args, name), DOCA_SUCCESS);
    }
    void start() {
        ASSERT_EQ(doca_dpa_set_app(dpa, app), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_start(dpa), DOCA_SUCCESS);
    }
    void TearDown() override {
        if (dpa) {
            EXPECT_EQ(doca_dpa_destroy(dpa), DOCA_SUCCESS);
        }
        if (app) {
            EXPECT_EQ(skiff_dpa_app_destroy(app), DOCA_SUCCESS);
        }
        if (dev) {
            EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
        }
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    uint64_t handle_of(doca_dpa *d) {
        doca_dpa_dev_t h = 0;
        EXPECT_EQ(doca_dpa_get_dpa_handle(d, &h), DOCA_SUCCESS);
        return h;
    }
};

} // namespace skiff::test
