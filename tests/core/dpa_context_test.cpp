// DPA context, memory, hash table, logger / tracer and the error state (spec 1.19.2-1.19.3,
// 1.19.11-1.19.13; checklist 5.9 items 52, 59-61): PF-only creation, extension rules, heap
// alloc / free / h2d / d2h / memset, hash table add / find / remove and the full table, device logs
// and traces in their files, and a fatal device fault that persists, blocks every call and writes
// the crash report.
#include "dpa_support.hpp"

#include <cstring>
#include <fstream>
#include <sstream>

namespace {

using skiff::test::dpa_fn;

uint64_t hash_rpc(uint64_t ht, uint64_t n) {
    for (uint32_t k = 0; k < n; ++k) doca_dpa_dev_hash_table_add(ht, k * 3, k * 100);
    doca_dpa_dev_hash_table_remove(ht, 3);
    uint64_t sum = 0, v = 0;
    for (uint32_t k = 0; k < n; ++k) {
        if (doca_dpa_dev_hash_table_find(ht, k * 3, &v)) sum += v;
    }
    return sum;
}

uint64_t log_rpc(uint64_t level) {
    doca_dpa_dev_log(static_cast<int>(level), "hello from level %d", static_cast<int>(level));
    doca_dpa_dev_trace(1, 2, 3, 4, 5);
    doca_dpa_dev_trace_flush();
    return 0;
}

uint64_t bad_handle_rpc(uint64_t) {
    doca_dpa_dev_completion_request_notification(0);
    return 0;
}

uint64_t heap_sum_rpc(uint64_t p, uint64_t n) {
    auto *bytes = reinterpret_cast<const uint8_t *>(p);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; ++i) sum += bytes[i];
    return sum;
}

void rank_in_thread(uint64_t) {
    (void)doca_dpa_dev_thread_rank(); // kernels only
}

void notify_kernel(uint64_t nc) {
    doca_dpa_dev_thread_notify(nc);
}

std::string read_file(const std::filesystem::path &p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

struct DpaContext : skiff::test::DpaTest {
    void SetUp() override {
        DpaTest::SetUp();
        rpc(&hash_rpc, 2, "hash_rpc");
        rpc(&log_rpc, 1, "log_rpc");
        rpc(&bad_handle_rpc, 1, "bad_handle_rpc");
        rpc(&heap_sum_rpc, 2, "heap_sum_rpc");
        kernel(&rank_in_thread, 1, "rank_in_thread");
        kernel(&notify_kernel, 1, "notify_kernel");
    }
};

} // namespace

TEST_F(DpaContext, CreationNeedsAPfWithDpaAndAnApplication) {
    doca_dev *host_pf = skiff::test::open_host_pf0();
    ASSERT_NE(host_pf, nullptr);
    doca_dpa *other = nullptr;
    EXPECT_EQ(doca_dpa_create(host_pf, &other), DOCA_ERROR_NOT_SUPPORTED) << "host functions have no DPA";
    EXPECT_EQ(doca_dev_close(host_pf), DOCA_SUCCESS);
    doca_dev *sf = skiff::test::open_by_iface("dpu", "en3f0pf0sf0");
    ASSERT_NE(sf, nullptr);
    EXPECT_EQ(doca_dpa_create(sf, &other), DOCA_ERROR_NOT_SUPPORTED) << "an SF needs an extended context";
    doca_dpa *ext = nullptr;
    EXPECT_EQ(doca_dpa_device_extend(dpa, sf, &ext), DOCA_ERROR_BAD_STATE) << "the base is not started";
    EXPECT_EQ(doca_dpa_start(dpa), DOCA_ERROR_BAD_STATE) << "no application";
    start();
    EXPECT_EQ(skiff_dpa_app_add_kernel(app, dpa_fn(&hash_rpc), 2, "late"), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(skiff_dpa_app_destroy(app), DOCA_ERROR_IN_USE);
    EXPECT_EQ(skiff_dpa_set_num_eus(dpa, 3), DOCA_ERROR_BAD_STATE);
    unsigned eus = 0;
    ASSERT_EQ(skiff_dpa_get_num_eus(dpa, &eus), DOCA_SUCCESS);
    EXPECT_EQ(eus, 2u);
    ASSERT_EQ(doca_dpa_device_extend(dpa, sf, &ext), DOCA_SUCCESS);
    doca_dpa_dev_t h = 0;
    EXPECT_EQ(doca_dpa_get_dpa_handle(ext, &h), DOCA_SUCCESS) << "an extended context is started";
    EXPECT_EQ(doca_dpa_destroy(ext), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(sf), DOCA_SUCCESS);
    char name[32];
    size_t len = sizeof(name);
    ASSERT_EQ(doca_dpa_app_get_name(app, name, &len), DOCA_SUCCESS);
    EXPECT_STREQ(name, "dpa_test");
}

// DOCA 3.x programs (dpa_nvqual) size their work by the EUs: every EU id an affinity may name.
TEST_F(DpaContext, CoresAndEusAreThoseOfABlueField3Dpa) {
    start();
    unsigned cores = 0, per_core = 0, total = 0;
    ASSERT_EQ(doca_dpa_get_core_num(dpa, &cores), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_get_num_eus_per_core(dpa, &per_core), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_get_total_num_eus_available(dpa, &total), DOCA_SUCCESS);
    EXPECT_EQ(cores, 16u);
    EXPECT_EQ(per_core, 16u);
    EXPECT_EQ(total, cores * per_core);
    doca_dpa_eu_affinity *affinity = nullptr;
    ASSERT_EQ(doca_dpa_eu_affinity_create(dpa, &affinity), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_eu_affinity_set(affinity, total - 1), DOCA_SUCCESS)
        << "the last EU is one an affinity names";
    EXPECT_NE(doca_dpa_eu_affinity_set(affinity, total), DOCA_SUCCESS) << "and no further";
    EXPECT_EQ(doca_dpa_eu_affinity_destroy(affinity), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_get_total_num_eus_available(nullptr, &total), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dpa_get_core_num(dpa, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DpaContext, HeapMemoryAllocCopySetFree) {
    start();
    doca_dpa_dev_uintptr_t p = 0;
    ASSERT_EQ(doca_dpa_mem_alloc(dpa, 100, &p), DOCA_SUCCESS);
    ASSERT_NE(p, 0u);
    ASSERT_EQ(doca_dpa_memset(dpa, p, 2, 100), DOCA_SUCCESS);
    uint64_t sum = 0;
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&heap_sum_rpc), &sum, p, uint64_t{100}), DOCA_SUCCESS);
    EXPECT_EQ(sum, 200u) << "device code reads what memset wrote";
    uint8_t in[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, out[10] = {};
    ASSERT_EQ(doca_dpa_h2d_memcpy(dpa, p + 50, in, sizeof(in)), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_d2h_memcpy(dpa, out, p + 50, sizeof(out)), DOCA_SUCCESS);
    EXPECT_EQ(std::memcmp(in, out, sizeof(in)), 0);
    EXPECT_EQ(doca_dpa_h2d_memcpy(dpa, p + 95, in, sizeof(in)), DOCA_ERROR_INVALID_VALUE)
        << "past the allocation";
    EXPECT_EQ(doca_dpa_d2h_memcpy(dpa, out, reinterpret_cast<uint64_t>(out), 1), DOCA_ERROR_INVALID_VALUE)
        << "host memory is not DPA heap";
    EXPECT_EQ(doca_dpa_mem_free(dpa, p + 1), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_dpa_mem_free(dpa, p), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_mem_free(dpa, p), DOCA_ERROR_INVALID_VALUE) << "freed already";
    EXPECT_EQ(doca_dpa_memset(dpa, p, 0, 1), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(DpaContext, HashTableAddFindRemove) {
    start();
    doca_dpa_hash_table *ht = nullptr;
    ASSERT_EQ(doca_dpa_hash_table_create(dpa, 10, &ht), DOCA_SUCCESS);
    doca_dpa_dev_hash_table_t h = 0;
    ASSERT_EQ(doca_dpa_hash_table_get_dpa_handle(ht, &h), DOCA_SUCCESS);
    uint64_t sum = 0;
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&hash_rpc), &sum, h, uint64_t{10}), DOCA_SUCCESS);
    EXPECT_EQ(sum, 4500u - 100u) << "keys 0..9 (x3) with values 0..900, key 3 removed";
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    // The same keys again only update; an eleventh distinct key does not fit.
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&hash_rpc), &sum, h, uint64_t{10}), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&hash_rpc), &sum, h, uint64_t{12}), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE) << "adding to a full table is detected";
    EXPECT_EQ(doca_dpa_hash_table_destroy(ht), DOCA_SUCCESS);
}

TEST_F(DpaContext, DeviceLogsHonourTheLevelAndTracesReachTheTraceFile) {
    ASSERT_EQ(doca_dpa_trace_file_set_path(dpa, (dir / "dpa.trace").c_str()), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_set_log_level(dpa, 45), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(doca_dpa_set_log_level(dpa, DOCA_DPA_DEV_LOG_LEVEL_WARNING), DOCA_SUCCESS);
    int level = 0;
    ASSERT_EQ(doca_dpa_get_log_level(dpa, &level), DOCA_SUCCESS);
    EXPECT_EQ(level, DOCA_DPA_DEV_LOG_LEVEL_WARNING);
    start();
    uint64_t r = 0;
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&log_rpc), &r, uint64_t{DOCA_DPA_DEV_LOG_LEVEL_ERROR}), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&log_rpc), &r, uint64_t{DOCA_DPA_DEV_LOG_LEVEL_DEBUG}), DOCA_SUCCESS);
    std::string log = read_file(dir / "dpa.log");
    EXPECT_NE(log.find("hello from level 30"), std::string::npos) << log;
    EXPECT_EQ(log.find("hello from level 60"), std::string::npos) << "above the level: dropped";
    std::string trace = read_file(dir / "dpa.trace");
    EXPECT_NE(trace.find("1 2 3 4 5"), std::string::npos) << trace;
    char path[256];
    uint32_t len = sizeof(path);
    ASSERT_EQ(doca_dpa_log_file_get_path(dpa, path, &len), DOCA_SUCCESS);
    EXPECT_EQ(std::string(path), (dir / "dpa.log").string());
}

// An injected fault (an invalid handle in device code): the error persists, every call fails,
// the crash report is next to the log file, and destroy still works.
TEST_F(DpaContext, AFatalFaultPersistsBlocksEveryCallAndWritesACrashFile) {
    start();
    doca_dpa_dev_uintptr_t p = 0;
    ASSERT_EQ(doca_dpa_mem_alloc(dpa, 16, &p), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&bad_handle_rpc), &r, uint64_t{0}), DOCA_ERROR_BAD_STATE);
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE) << "never reset";
    doca_dpa_thread *t = nullptr;
    EXPECT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_ERROR_BAD_STATE);
    doca_dpa_dev_uintptr_t q = 0;
    EXPECT_EQ(doca_dpa_mem_alloc(dpa, 16, &q), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 1, dpa_fn(&rank_in_thread), 0),
              DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&heap_sum_rpc), &r, p, uint64_t{1}), DOCA_ERROR_BAD_STATE);
    auto crash = dir / ("doca_dpa_fatal." + std::to_string(::getpid()) + ".crash");
    std::string report = read_file(crash);
    EXPECT_NE(report.find("invalid handle"), std::string::npos) << report;
    EXPECT_NE(report.find("bad_handle_rpc"), std::string::npos) << report;
}

TEST_F(DpaContext, KernelOnlyCallsInADpaThreadAreAFault) {
    start();
    doca_dpa_thread *t = nullptr;
    ASSERT_EQ(doca_dpa_thread_create(dpa, &t), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_set_func_arg(t, dpa_fn(&rank_in_thread), 0), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_start(t), DOCA_SUCCESS);
    doca_dpa_notification_completion *nc = nullptr;
    ASSERT_EQ(doca_dpa_notification_completion_create(dpa, t, &nc), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_notification_completion_start(nc), DOCA_SUCCESS);
    ASSERT_EQ(doca_dpa_thread_run(t), DOCA_SUCCESS);
    doca_dpa_dev_notification_completion_t h = 0;
    ASSERT_EQ(doca_dpa_notification_completion_get_dpa_handle(nc, &h), DOCA_SUCCESS);
    // A launched kernel wakes the thread, whose doca_dpa_dev_thread_rank is the fault.
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 1, dpa_fn(&notify_kernel), h),
              DOCA_SUCCESS);
    EXPECT_TRUE(
        skiff::test::eventually([&] { return doca_dpa_peek_at_last_error(dpa) == DOCA_ERROR_BAD_STATE; }));
    EXPECT_EQ(doca_dpa_thread_stop(t), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_stop(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_notification_completion_destroy(nc), DOCA_SUCCESS);
    EXPECT_EQ(doca_dpa_thread_destroy(t), DOCA_SUCCESS);
}
