// What unmodified DOCA programs (NVIDIA's samples) need beyond the core rules: the DOCA 2.7+ sync
// event calls (wait_eq, the wait_eq task, remote-PCI export and import), the newer capability
// names (doca_dpa_cap_is_supported, the per-task RDMA queries), DOCA ARGP, doca_version.h, a log
// source named with "::", and the FlexIO resources call the DPA samples make.
#include "sync_event_fixture.hpp"

#include <doca_argp.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>
#include <doca_version.h>
#include <libflexio/flexio.h>

#include <skiff/core/device.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

DOCA_LOG_REGISTER(CORE_TESTS::DOCA_PROGRAMS);

namespace {

struct StartedEvent : skiff::test::StartedSyncEvent {};

std::vector<doca_devinfo *> devinfos(doca_devinfo ***list) {
    uint32_t n = 0;
    EXPECT_EQ(doca_devinfo_create_list(list, &n), DOCA_SUCCESS);
    return std::vector<doca_devinfo *>(*list, *list + n);
}

} // namespace

TEST_F(StartedEvent, WaitEqWaitsForEqualityUnderTheMask) {
    std::atomic<bool> done{false};
    std::thread waiter([&] {
        EXPECT_EQ(doca_sync_event_wait_eq(event, 0x42, 0xff), DOCA_SUCCESS);
        done = true;
    });
    ASSERT_EQ(doca_sync_event_update_set(event, 0x43), DOCA_SUCCESS); // greater is not equal
    for (int i = 0; i < 50 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_FALSE(done.load());
    ASSERT_EQ(doca_sync_event_update_set(event, 0x1142), DOCA_SUCCESS); // equal in the low byte
    waiter.join();
    EXPECT_TRUE(done.load());
    EXPECT_EQ(doca_sync_event_wait_eq_yield(event, 0x1142, UINT64_MAX), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_wait_eq(event, 1, 0x0ff0), DOCA_ERROR_INVALID_VALUE) << "unaligned mask";
}

TEST(SyncEventWaitEqTask, CompletesOnEqualityAndFailsAtStop) {
    struct Seen {
        std::vector<doca_error_t> status;
    } seen;
    doca_pe *pe = nullptr;
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    doca_ctx *ctx = doca_sync_event_as_ctx(event);
    doca_data ud{};
    ud.ptr = &seen;
    doca_ctx_set_user_data(ctx, ud);
    auto cb = [](doca_sync_event_task_wait_eq *task, doca_data, doca_data ctx_ud) {
        doca_task *t = doca_sync_event_task_wait_eq_as_doca_task(task);
        static_cast<Seen *>(ctx_ud.ptr)->status.push_back(doca_task_get_status(t));
        doca_task_free(t);
    };
    ASSERT_EQ(doca_sync_event_task_wait_eq_set_conf(event, cb, cb, 4), DOCA_SUCCESS);
    ASSERT_EQ(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_task_wait_eq_set_conf(event, cb, cb, 4), DOCA_ERROR_BAD_STATE);
    doca_sync_event_task_wait_eq *task = nullptr;
    EXPECT_EQ(doca_sync_event_task_wait_eq_alloc_init(event, 1, 0x0ff0, {}, &task), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(event, 3, UINT64_MAX, {}, &task), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_task_wait_eq_get_wait_val(task), 3u);
    EXPECT_EQ(doca_sync_event_task_wait_eq_get_mask(task), UINT64_MAX);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(task)), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_update_set(event, 4), DOCA_SUCCESS);
    for (int i = 0; i < 100; ++i) doca_pe_progress(pe);
    EXPECT_TRUE(seen.status.empty()) << "4 is not 3";
    ASSERT_EQ(doca_sync_event_update_set(event, 3), DOCA_SUCCESS);
    while (doca_pe_progress(pe)) {
    }
    EXPECT_EQ(seen.status, (std::vector<doca_error_t>{DOCA_SUCCESS}));
    ASSERT_EQ(doca_sync_event_task_wait_eq_alloc_init(event, 9, UINT64_MAX, {}, &task), DOCA_SUCCESS);
    ASSERT_EQ(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(task)), DOCA_SUCCESS);
    EXPECT_EQ(doca_ctx_stop(ctx), DOCA_ERROR_IN_PROGRESS);
    for (int i = 0; i < 1000; ++i) doca_pe_progress(pe);
    EXPECT_EQ(seen.status, (std::vector<doca_error_t>{DOCA_SUCCESS, DOCA_ERROR_SHUTDOWN}));
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
}

TEST(SyncEventRemotePci, AnotherProcessSharesTheCounter) {
    auto dev = skiff::core::Device::open_with_cap(skiff::core::DevCap::mmap_export_pci);
    if (!dev.ok()) dev = skiff::core::Device::open_with_cap(skiff::core::DevCap::dma_memcpy);
    ASSERT_TRUE(dev.ok());
    doca_sync_event *event = nullptr;
    ASSERT_EQ(doca_sync_event_create(&event), DOCA_SUCCESS);
    uint64_t word = 0;
    ASSERT_EQ(doca_sync_event_add_publisher_location_remote_pci(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_set_addr(event, &word), DOCA_ERROR_NOT_SUPPORTED)
        << "the other side could not reach the caller's memory";
    ASSERT_EQ(doca_sync_event_add_subscriber_location_cpu(event, dev->get()), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(event), DOCA_SUCCESS);
    const uint8_t *blob = nullptr;
    size_t len = 0;
    ASSERT_EQ(doca_sync_event_export_to_remote_pci(event, dev->get(), &blob, &len), DOCA_SUCCESS);

    // Same process first: the import is a second event over one counter.
    doca_sync_event *imported = nullptr;
    ASSERT_EQ(doca_sync_event_create_from_export(dev->get(), blob, len, &imported), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_start(imported), DOCA_SUCCESS);
    ASSERT_EQ(doca_sync_event_update_set(event, 7), DOCA_SUCCESS);
    uint64_t v = 0;
    ASSERT_EQ(doca_sync_event_get(imported, &v), DOCA_SUCCESS);
    EXPECT_EQ(v, 7u);
    EXPECT_EQ(doca_sync_event_stop(imported), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(imported), DOCA_SUCCESS);

    // Another process: waits for 8 (set here), adds 1.
    pid_t pid = fork();
    if (pid == 0) {
        doca_sync_event *other = nullptr;
        uint64_t before = 0;
        bool ok = doca_sync_event_create_from_export(dev->get(), blob, len, &other) == DOCA_SUCCESS &&
                  doca_sync_event_start(other) == DOCA_SUCCESS &&
                  doca_sync_event_wait_eq(other, 8, UINT64_MAX) == DOCA_SUCCESS &&
                  doca_sync_event_update_add(other, 1, &before) == DOCA_SUCCESS && before == 8;
        _exit(ok ? 0 : 1);
    }
    ASSERT_EQ(doca_sync_event_update_set(event, 8), DOCA_SUCCESS);
    // The child's add (9), or its end: a failed child must not leave this side waiting.
    int status = 0;
    bool child_done = false;
    for (;;) {
        ASSERT_EQ(doca_sync_event_get(event, &v), DOCA_SUCCESS);
        if (v == 9) break;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            child_done = true;
            doca_sync_event_get(event, &v);
            break;
        }
        usleep(200);
    }
    EXPECT_EQ(v, 9u) << "the other process's add";
    if (v == 9) {
        EXPECT_EQ(doca_sync_event_wait_eq(event, 9, UINT64_MAX), DOCA_SUCCESS);
    }
    if (!child_done) waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    std::vector<uint8_t> bad(blob, blob + len);
    bad[0] ^= 0xff;
    EXPECT_EQ(doca_sync_event_create_from_export(dev->get(), bad.data(), bad.size(), &imported),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_sync_event_stop(event), DOCA_SUCCESS);
    EXPECT_EQ(doca_sync_event_destroy(event), DOCA_SUCCESS);
}

TEST(DocaCapabilities, NewerNamesAnswerLikeTheOlderOnes) {
    doca_devinfo **list = nullptr;
    auto infos = devinfos(&list);
    ASSERT_FALSE(infos.empty());
    for (doca_devinfo *info : infos) {
        EXPECT_EQ(doca_dpa_cap_is_supported(info), doca_devinfo_get_is_dpa_supported(info));
        doca_error_t rdma = skiff::core::devinfo_has_cap(info, skiff::core::DevCap::rdma)
                                ? DOCA_SUCCESS
                                : DOCA_ERROR_NOT_SUPPORTED;
        for (auto cap : {doca_rdma_cap_task_receive_is_supported, doca_rdma_cap_task_send_is_supported,
                         doca_rdma_cap_task_send_imm_is_supported, doca_rdma_cap_task_read_is_supported,
                         doca_rdma_cap_task_write_is_supported, doca_rdma_cap_task_write_imm_is_supported,
                         doca_rdma_cap_task_remote_net_sync_event_get_is_supported,
                         doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported,
                         doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported})
            EXPECT_EQ(cap(info), rdma);
        EXPECT_EQ(doca_rdma_cap_transport_type_is_supported(info, DOCA_RDMA_TRANSPORT_TYPE_DC),
                  DOCA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(doca_sync_event_cap_task_wait_eq_is_supported(info), DOCA_SUCCESS);
    }
    EXPECT_EQ(doca_dpa_cap_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_rdma_cap_task_write_is_supported(nullptr), DOCA_ERROR_INVALID_VALUE);
    doca_devinfo_destroy_list(list);
}

namespace {

struct ArgpConfig {
    std::string name;
    int count = 0;
    bool flag = false;
};

doca_argp_param *make_param(const char *short_name, const char *long_name, doca_argp_type type,
                            doca_argp_param_cb_t cb) {
    doca_argp_param *p = nullptr;
    EXPECT_EQ(doca_argp_param_create(&p), DOCA_SUCCESS);
    if (short_name) doca_argp_param_set_short_name(p, short_name);
    doca_argp_param_set_long_name(p, long_name);
    doca_argp_param_set_description(p, "test");
    doca_argp_param_set_callback(p, cb);
    doca_argp_param_set_type(p, type);
    return p;
}

} // namespace

TEST(DocaArgp, ParsesTheThreeTypesIntoTheProgramConfiguration) {
    ArgpConfig cfg;
    ASSERT_EQ(doca_argp_init(nullptr, &cfg), DOCA_SUCCESS);
    auto name_cb = [](void *param, void *config) {
        static_cast<ArgpConfig *>(config)->name = static_cast<const char *>(param);
        return DOCA_SUCCESS;
    };
    auto count_cb = [](void *param, void *config) {
        static_cast<ArgpConfig *>(config)->count = *static_cast<int *>(param);
        return DOCA_SUCCESS;
    };
    auto flag_cb = [](void *param, void *config) {
        static_cast<ArgpConfig *>(config)->flag = *static_cast<bool *>(param);
        return DOCA_SUCCESS;
    };
    doca_argp_param *name = make_param("s", "sample-name", DOCA_ARGP_TYPE_STRING, name_cb);
    doca_argp_param_set_mandatory(name);
    ASSERT_EQ(doca_argp_register_param(name), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_param(make_param("c", "count", DOCA_ARGP_TYPE_INT, count_cb)), DOCA_SUCCESS);
    ASSERT_EQ(doca_argp_register_param(make_param(nullptr, "flag", DOCA_ARGP_TYPE_BOOLEAN, flag_cb)),
              DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_register_param(make_param("h", "hide", DOCA_ARGP_TYPE_INT, count_cb)),
              DOCA_ERROR_INVALID_VALUE)
        << "-h is the built-in help";
    const char *argv[] = {"prog", "--sample-name=pe_polling", "-c", "-7", "--flag"};
    ASSERT_EQ(doca_argp_start(5, const_cast<char **>(argv)), DOCA_SUCCESS);
    EXPECT_EQ(cfg.name, "pe_polling");
    EXPECT_EQ(cfg.count, -7);
    EXPECT_TRUE(cfg.flag);
    const char *missing[] = {"prog", "-c", "1"};
    EXPECT_EQ(doca_argp_start(3, const_cast<char **>(missing)), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_argp_destroy(), DOCA_SUCCESS);
    EXPECT_EQ(doca_argp_start(1, const_cast<char **>(argv)), DOCA_ERROR_BAD_STATE) << "destroyed";
}

TEST(DocaVersion, CompiledAndRuntimeVersionsAgree) {
    EXPECT_STREQ(doca_version(), DOCA_VER_STRING);
    std::string runtime = doca_version_runtime();
    EXPECT_EQ(runtime.rfind(DOCA_VER_STRING, 0), 0u) << runtime;
    EXPECT_NE(runtime.find("skiff"), std::string::npos) << runtime;
    static_assert(DOCA_VERSION_LTE_CURRENT(2, 10, 0));
    DOCA_LOG_INFO("registered as CORE_TESTS::DOCA_PROGRAMS"); // the "::" name compiles and logs
}

TEST(FlexioResources, FilesAreRefusedWithoutAResource) {
    char yaml[] = "anything";
    flexio_resource *res = reinterpret_cast<flexio_resource *>(0x1);
    EXPECT_EQ(flexio_resources_create("app", yaml, sizeof yaml, &res), FLEXIO_STATUS_FAILED);
    EXPECT_EQ(res, nullptr);
    EXPECT_EQ(flexio_resources_get_eus_num(nullptr), 0u);
    EXPECT_EQ(flexio_resources_get_eugs_num(nullptr), 0);
}
