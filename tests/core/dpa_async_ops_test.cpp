// Async ops (spec 1.19.9; checklist 5.9 items 56-57): memcpy by mmap and by buffer behaves like
// DMA, user data is echoed, OPTIMIZE_REPORTS ops are reported by the next non-deferred completion,
// FLUSH issues everything before it, post_wait_gt / post_wait_ne activate the thread when the event
// condition holds, queue_size and the [0, 254] range are enforced.
#include "dpa_support.hpp"

#include <doca_buf_array.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_mmap.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <cstring>
#include <vector>

namespace {

using skiff::test::dpa_fn;
using skiff::test::eventually;

struct OpsState {
    doca_dpa_dev_completion_t comp = 0;
    std::atomic<int> completions{0};
    std::atomic<int> errors{0};
    std::atomic<uint32_t> user_data{0};
};

// Drains the completion context, counts, re-arms.
void ops_thread(uint64_t arg) {
    auto *s = reinterpret_cast<OpsState *>(arg);
    doca_dpa_dev_completion_element_t e;
    int n = 0;
    while (doca_dpa_dev_get_completion(s->comp, &e)) {
        if (doca_dpa_dev_get_completion_type(e) == DOCA_DPA_DEV_COMP_SEND_ERR) s->errors.fetch_add(1);
        s->user_data = doca_dpa_dev_get_completion_user_data(e);
        ++n;
    }
    if (n) doca_dpa_dev_completion_ack(s->comp, n);
    s->completions.fetch_add(n);
    doca_dpa_dev_completion_request_notification(s->comp);
    doca_dpa_dev_thread_reschedule();
}

uint64_t arm_rpc(uint64_t comp) {
    doca_dpa_dev_completion_request_notification(comp);
    return 0;
}

// Posts three 64-byte copies with the given flags for each.
uint64_t memcpy3_rpc(uint64_t ao, uint64_t mmap, uint64_t dst, uint64_t src, uint64_t f0, uint64_t f1,
                     uint64_t f2) {
    uint64_t flags[3] = {f0, f1, f2};
    for (int i = 0; i < 3; ++i)
        doca_dpa_dev_post_memcpy(ao, mmap, dst + 64 * i, mmap, src + 64 * i, 64,
                                 static_cast<uint32_t>(flags[i]));
    return 0;
}

uint64_t bad_memcpy_rpc(uint64_t ao, uint64_t mmap, uint64_t dst, uint64_t src) {
    doca_dpa_dev_post_memcpy(ao, mmap, dst, mmap, src, 1u << 30, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return 0;
}

uint64_t buf_memcpy_rpc(uint64_t ao, uint64_t arr) {
    doca_dpa_dev_buf_t dst = doca_dpa_dev_buf_array_get_buf(arr, 1);
    doca_dpa_dev_buf_t src = doca_dpa_dev_buf_array_get_buf(arr, 0);
    doca_dpa_dev_post_buf_memcpy(ao, dst, src, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    return doca_dpa_dev_buf_get_len(dst);
}

uint64_t wait_gt_rpc(uint64_t ao, uint64_t ev, uint64_t v) {
    doca_dpa_dev_sync_event_post_wait_gt(ao, ev, v);
    return 0;
}

uint64_t wait_ne_rpc(uint64_t ao, uint64_t ev, uint64_t v) {
    doca_dpa_dev_sync_event_post_wait_ne(ao, ev, v);
    return 0;
}

// Checklist 62: rank 0 posts (and so holds the async ops until it returns) and waits for rank 1,
// which posts to the same async ops meanwhile; rank 0 gives up waiting after a generous bound.
struct TwoPosters {
    std::atomic<int> held{0};
    std::atomic<int> tried{0};
    std::atomic<int> done{0}; // ranks that returned: the test outlives both (they read *this)
};

void two_posters_kernel(uint64_t ao, uint64_t mmap, uint64_t dst, uint64_t src, uint64_t arg) {
    auto *t = reinterpret_cast<TwoPosters *>(arg);
    if (doca_dpa_dev_thread_rank() == 0) {
        doca_dpa_dev_post_memcpy(ao, mmap, dst, mmap, src, 8, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
        t->held = 1;
        skiff::test::eventually([&] { return t->tried.load() == 1; }, std::chrono::seconds(20));
    } else {
        skiff::test::eventually([&] { return t->held.load() == 1; }, std::chrono::seconds(20));
        doca_dpa_dev_post_memcpy(ao, mmap, dst + 8, mmap, src, 8, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
        t->tried = 1;
    }
    t->done.fetch_add(1);
}

constexpr uint64_t kUserData = 0xabcdef;

struct DpaAsyncOps : skiff::test::DpaTest {
    OpsState s;
    doca_dpa_thread *thread = nullptr;
    doca_dpa_completion *comp = nullptr;
    doca_dpa_async_ops *ao = nullptr;
    uint64_t ao_h = 0;
    std::vector<uint8_t> memory = std::vector<uint8_t>(4096);
    doca_mmap *mmap = nullptr;
    uint64_t mmap_h = 0;

    void SetUp() override {
        DpaTest::SetUp();
        kernel(&ops_thread, 1, "ops_thread");
        rpc(&arm_rpc, 1, "arm_rpc");
        rpc(&memcpy3_rpc, 7, "memcpy3_rpc");
        rpc(&bad_memcpy_rpc, 4, "bad_memcpy_rpc");
        rpc(&buf_memcpy_rpc, 2, "buf_memcpy_rpc");
        rpc(&wait_gt_rpc, 3, "wait_gt_rpc");
        rpc(&wait_ne_rpc, 3, "wait_ne_rpc");
        kernel(&two_posters_kernel, 5, "two_posters_kernel");
        start();
        ASSERT_EQ(doca_dpa_thread_create(dpa, &thread), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_set_func_arg(thread, dpa_fn(&ops_thread), reinterpret_cast<uint64_t>(&s)),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_start(thread), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_completion_create(dpa, 64, &comp), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_completion_set_thread(comp, thread), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_completion_start(comp), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_completion_get_dpa_handle(comp, &s.comp), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_thread_run(thread), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_async_ops_create(dpa, 8, kUserData, &ao), DOCA_SUCCESS);
        EXPECT_EQ(doca_dpa_async_ops_start(ao), DOCA_ERROR_BAD_STATE) << "attach first";
        ASSERT_EQ(doca_dpa_async_ops_attach(ao, comp), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_async_ops_start(ao), DOCA_SUCCESS);
        ASSERT_EQ(doca_dpa_async_ops_get_dpa_handle(ao, &ao_h), DOCA_SUCCESS);
        uint64_t r = 0;
        ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&arm_rpc), &r, s.comp), DOCA_SUCCESS);

        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        doca_dpa_dev_mmap_t h = 0; // 32 bits; the RPCs here take every argument as a 64-bit word
        ASSERT_EQ(doca_mmap_dev_get_dpa_handle(mmap, dev, &h), DOCA_SUCCESS);
        mmap_h = h;
        for (size_t i = 0; i < 1024; ++i) memory[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    void TearDown() override {
        if (ao) {
            EXPECT_EQ(doca_dpa_async_ops_stop(ao), DOCA_SUCCESS);
            EXPECT_EQ(doca_dpa_async_ops_destroy(ao), DOCA_SUCCESS);
        }
        if (thread) {
            EXPECT_EQ(doca_dpa_thread_stop(thread), DOCA_SUCCESS);
        }
        if (comp) {
            EXPECT_EQ(doca_dpa_completion_stop(comp), DOCA_SUCCESS);
            EXPECT_EQ(doca_dpa_completion_destroy(comp), DOCA_SUCCESS);
        }
        if (thread) {
            EXPECT_EQ(doca_dpa_thread_destroy(thread), DOCA_SUCCESS);
        }
        if (mmap) {
            EXPECT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS);
            EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        }
        DpaTest::TearDown();
    }
    uint64_t addr(size_t off) { return reinterpret_cast<uint64_t>(memory.data() + off); }
    void rpc_call(doca_dpa_func_t *f, uint64_t a, uint64_t b, uint64_t c, uint64_t d = 0, uint64_t e = 0,
                  uint64_t g = 0, uint64_t h = 0) {
        uint64_t r = 0;
        ASSERT_EQ(doca_dpa_rpc(dpa, f, &r, a, b, c, d, e, g, h), DOCA_SUCCESS);
    }
    doca_sync_event *event() { return skiff::test::make_dpa_event(dpa, dev); }
    uint64_t ev_handle(doca_sync_event *ev) {
        doca_dpa_dev_sync_event_t h = 0;
        EXPECT_EQ(doca_sync_event_get_dpa_handle(ev, dpa, &h), DOCA_SUCCESS);
        return h;
    }
};

} // namespace

TEST_F(DpaAsyncOps, UserDataMustFitTwentyFourBits) {
    doca_dpa_async_ops *big = nullptr;
    EXPECT_EQ(doca_dpa_async_ops_create(dpa, 4, 1u << 24, &big), DOCA_ERROR_INVALID_VALUE);
    uint64_t ud = 0;
    ASSERT_EQ(doca_dpa_async_ops_get_user_data(ao, &ud), DOCA_SUCCESS);
    EXPECT_EQ(ud, kUserData);
}

TEST_F(DpaAsyncOps, EveryFlushedMemcpyCompletesWithTheUserData) {
    constexpr uint64_t F = DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH;
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), F, F, F);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 3; }));
    EXPECT_EQ(std::memcmp(memory.data() + 2048, memory.data(), 192), 0);
    EXPECT_EQ(s.user_data.load(), kUserData);
    EXPECT_EQ(s.errors.load(), 0);
}

// OPTIMIZE_REPORTS, OPTIMIZE_REPORTS, FLUSH: one completion covers all three.
TEST_F(DpaAsyncOps, DeferredReportsComeWithTheNextCompletion) {
    constexpr uint64_t O = DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS, F = DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH;
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), O | F, O | F, F);
    ASSERT_TRUE(eventually([&] { return s.completions.load() >= 1; }));
    EXPECT_EQ(std::memcmp(memory.data() + 2048, memory.data(), 192), 0) << "the completion implies all three";
    // Another round proves no late completions of the deferred ops exist.
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(3072), addr(0), F, F, F);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 4; }));
}

// NONE, NONE, FLUSH: nothing is required before the flush; everything is done after it.
TEST_F(DpaAsyncOps, FlushIssuesEverythingBeforeIt) {
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), 0, 0, DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 3; }));
    EXPECT_EQ(std::memcmp(memory.data() + 2048, memory.data(), 192), 0);
}

TEST_F(DpaAsyncOps, ACopyOutsideTheMmapFailsWithAnErrorCompletion) {
    rpc_call(dpa_fn(&bad_memcpy_rpc), ao_h, mmap_h, addr(2048), addr(0));
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    EXPECT_EQ(s.errors.load(), 1);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS) << "a failed operation is not a fault";
}

// DOCA's doca_dpa_dev_mmap_t is 32 bits. A handle names its mmap only while that mmap lives: the
// next mmap gets another handle, and a copy through the old one fails like any bad address.
TEST_F(DpaAsyncOps, AnMmapHandleIs32BitsAndDiesWithItsMmap) {
    static_assert(sizeof(doca_dpa_dev_mmap_t) == 4);
    std::vector<uint8_t> other(4096, 0x5a);
    auto make = [&](doca_mmap **m, doca_dpa_dev_mmap_t *h) {
        ASSERT_EQ(doca_mmap_create(m), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(*m, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(*m, other.data(), other.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(*m), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_dev_get_dpa_handle(*m, dev, h), DOCA_SUCCESS);
    };
    doca_mmap *first = nullptr, *second = nullptr;
    doca_dpa_dev_mmap_t h1 = 0, h2 = 0, again = 0;
    make(&first, &h1);
    ASSERT_EQ(doca_mmap_dev_get_dpa_handle(first, dev, &again), DOCA_SUCCESS);
    EXPECT_EQ(again, h1) << "one mmap, one handle";
    EXPECT_NE(h1, mmap_h);
    ASSERT_EQ(doca_mmap_stop(first), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_destroy(first), DOCA_SUCCESS);
    make(&second, &h2);
    EXPECT_NE(h2, h1) << "the handle of a destroyed mmap named the next one";
    constexpr uint64_t F = DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH;
    auto base = reinterpret_cast<uint64_t>(other.data());
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, h2, base + 2048, base, F, F, F); // the live handle copies
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 3; }));
    EXPECT_EQ(s.errors.load(), 0);
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, h1, base + 2048, base, F, F, F); // the same through the dead one
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 6; }));
    EXPECT_EQ(s.errors.load(), 3);
    EXPECT_EQ(doca_mmap_stop(second), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(second), DOCA_SUCCESS);
}

TEST_F(DpaAsyncOps, MemcpyByBufferArrayElements) {
    doca_buf_arr *arr = nullptr;
    ASSERT_EQ(doca_buf_arr_create(2, &arr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_params(arr, mmap, 512, 0), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_set_target_dpa(arr, dpa), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_start(arr), DOCA_SUCCESS);
    doca_dpa_dev_buf_arr_t arr_h = 0;
    ASSERT_EQ(doca_buf_arr_get_dpa_handle(arr, &arr_h), DOCA_SUCCESS);
    uint64_t len = 0;
    ASSERT_EQ(doca_dpa_rpc(dpa, dpa_fn(&buf_memcpy_rpc), &len, ao_h, arr_h), DOCA_SUCCESS);
    EXPECT_EQ(len, 512u);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    EXPECT_EQ(std::memcmp(memory.data() + 512, memory.data(), 512), 0);
    ASSERT_EQ(doca_buf_arr_stop(arr), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_arr_destroy(arr), DOCA_SUCCESS);
}

TEST_F(DpaAsyncOps, PostWaitGreaterThanActivatesTheThreadWhenTheEventPassesTheValue) {
    doca_sync_event *ev = event();
    rpc_call(dpa_fn(&wait_gt_rpc), ao_h, ev_handle(ev), 3);
    ASSERT_EQ(doca_sync_event_update_set(ev, 3), DOCA_SUCCESS);
    EXPECT_EQ(s.completions.load(), 0) << "3 is not greater than 3";
    ASSERT_EQ(doca_sync_event_update_set(ev, 4), DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    skiff::test::destroy_event(ev);
}

TEST_F(DpaAsyncOps, PostWaitNotEqualActivatesWhenTheEventChanges) {
    doca_sync_event *ev = event();
    ASSERT_EQ(doca_sync_event_update_set(ev, 9), DOCA_SUCCESS);
    rpc_call(dpa_fn(&wait_ne_rpc), ao_h, ev_handle(ev), 9);
    EXPECT_EQ(s.completions.load(), 0);
    ASSERT_EQ(doca_sync_event_update_set(ev, 2), DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 1; }));
    skiff::test::destroy_event(ev);
}

TEST_F(DpaAsyncOps, AWaitValueAbove254IsAFault) {
    doca_sync_event *ev = event();
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&wait_gt_rpc), &r, ao_h, ev_handle(ev), uint64_t{255}),
              DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
    skiff::test::destroy_event(ev);
}

TEST_F(DpaAsyncOps, MoreOutstandingOperationsThanQueueSizeIsAFault) {
    // 8 unflushed copies fill the queue of 8; the ninth overflows it.
    for (int round = 0; round < 2; ++round)
        rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), 0, 0, 0);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
    uint64_t r = 0;
    EXPECT_EQ(doca_dpa_rpc(dpa, dpa_fn(&memcpy3_rpc), &r, ao_h, mmap_h, addr(2048), addr(0), uint64_t{0},
                           uint64_t{0}, uint64_t{0}),
              DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_ERROR_BAD_STATE);
}

// Checklist 62: DPA objects are not thread-safe; two device functions posting to one async ops
// context at once is the fatal error in debug builds (the check is compiled out with NDEBUG).
TEST_F(DpaAsyncOps, TwoKernelsPostingToOneContextAtOnceIsAFaultInDebugBuilds) {
#ifdef NDEBUG
    GTEST_SKIP() << "the concurrent-use check exists in debug builds only";
#else
    TwoPosters t;
    ASSERT_EQ(doca_dpa_kernel_launch_update_set(dpa, nullptr, 0, nullptr, 0, 2, dpa_fn(&two_posters_kernel),
                                                ao_h, mmap_h, addr(2048), addr(0),
                                                reinterpret_cast<uint64_t>(&t)),
              DOCA_SUCCESS);
    ASSERT_TRUE(eventually([&] { return t.tried.load() == 1; }));
    ASSERT_TRUE(eventually([&] { return doca_dpa_peek_at_last_error(dpa) == DOCA_ERROR_BAD_STATE; }));
    auto crash = dir / ("doca_dpa_fatal." + std::to_string(::getpid()) + ".crash");
    ASSERT_TRUE(eventually([&] { return std::filesystem::exists(crash); }));
    std::ifstream in(crash);
    std::string report((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(report.find("used by two DPA threads or kernels at once"), std::string::npos) << report;
    ASSERT_TRUE(eventually([&] { return t.done.load() == 2; }));
#endif
}

// One after the other (two RPCs, then the thread) is fine in every build.
TEST_F(DpaAsyncOps, DeviceFunctionsUsingOneContextInTurnAreFine) {
    constexpr uint64_t F = DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH;
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), F, F, F);
    rpc_call(dpa_fn(&memcpy3_rpc), ao_h, mmap_h, addr(2048), addr(0), F, F, F);
    ASSERT_TRUE(eventually([&] { return s.completions.load() == 6; }));
    EXPECT_EQ(doca_dpa_peek_at_last_error(dpa), DOCA_SUCCESS);
}
