// The two emulated DMA engines (skiff_dma_set_engine, SKIFF_DMA_ENGINE): a completion never runs
// inside doca_task_submit() and always arrives on a progress call made after the submit, in both
// engines; the engine is chosen while IDLE; threaded contexts share one worker thread per process.
// (The rest of the DMA suite runs once per engine: see the skiff-core-tests-dma-thread
// registration in tests/CMakeLists.txt.)
#include "dma_support.hpp"

#include <doca_dma.h>
#include <doca_pe.h>

#include <gtest/gtest.h>

#include <dirent.h>

#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using skiff::test::DmaFixture;
using skiff::test::progress_until_state;
using skiff::test::ScopedEnv;

namespace {

// Every completion resubmits its task from inside the callback until kCompletions have arrived.
// The test counts its progress calls and remembers the call after which each task was submitted.
class DmaEngineChoice : public DmaFixture, public ::testing::WithParamInterface<skiff_dma_engine_kind> {
  protected:
    static constexpr long kCompletions = 2000;
    static constexpr uint32_t kInFlight = 16;
    static inline DmaEngineChoice *me = nullptr;

    long progress_calls = 0;
    bool in_submit = false;
    long completions = 0;
    long completed_inside_submit = 0;
    long completed_in_submit_call = 0;
    long failures = 0;
    bool resubmit = true;
    std::map<doca_task *, long> submitted_after_call;

    void before_start() override {
        me = this;
        ASSERT_EQ(skiff_dma_set_engine(dma, GetParam()), DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_task_memcpy_set_conf(dma, on_done, on_done, num_tasks()), DOCA_SUCCESS);
    }

    void submit_task(doca_task *task) {
        submitted_after_call[task] = progress_calls;
        in_submit = true;
        ASSERT_EQ(doca_task_submit(task), DOCA_SUCCESS);
        in_submit = false;
    }

    static void on_done(doca_dma_task_memcpy *task, doca_data, doca_data) {
        doca_task *t = doca_dma_task_memcpy_as_task(task);
        ++me->completions;
        if (me->in_submit) ++me->completed_inside_submit;
        if (me->submitted_after_call[t] >= me->progress_calls) ++me->completed_in_submit_call;
        if (doca_task_get_status(t) != DOCA_SUCCESS) ++me->failures;
        if (!me->resubmit || me->completions + kInFlight > kCompletions) {
            doca_task_free(t);
            return;
        }
        doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
        me->submit_task(t);
    }
};

// Threads of this process, from /proc/self/task.
size_t thread_count() {
    size_t n = 0;
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return 0;
    while (dirent *e = readdir(dir))
        if (e->d_name[0] != '.') ++n;
    closedir(dir);
    return n;
}

skiff_dma_engine_kind engine_of(doca_dma *dma) {
    skiff_dma_engine_kind kind{};
    EXPECT_EQ(skiff_dma_get_engine(dma, &kind), DOCA_SUCCESS);
    return kind;
}

} // namespace

TEST_P(DmaEngineChoice, NoCompletionRunsInsideSubmitAndEachArrivesOnALaterProgressCall) {
    ASSERT_EQ(engine_of(dma), GetParam());
    for (uint32_t i = 0; i < kInFlight; ++i) {
        doca_dma_task_memcpy *task = nullptr;
        doca_buf *src = buf(i * 4096, 4096, 4096);
        doca_buf *dst = buf(kSize / 2 + i * 4096, 4096, 0);
        ASSERT_EQ(doca_dma_task_memcpy_alloc_init(dma, src, dst, doca_data{}, &task), DOCA_SUCCESS);
        submit_task(doca_dma_task_memcpy_as_task(task));
    }
    EXPECT_EQ(completions, 0) << "a task completed before any progress call";
    for (long i = 0; i < 50000000L && completions < kCompletions; ++i) {
        ++progress_calls;
        if (!doca_pe_progress(pe)) std::this_thread::yield();
    }
    EXPECT_EQ(completions, kCompletions);
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(completed_inside_submit, 0) << "a completion callback ran inside doca_task_submit";
    EXPECT_EQ(completed_in_submit_call, 0) << "a task resubmitted from a callback completed in the same "
                                              "progress call";
    for (uint32_t i = 0; i < kInFlight; ++i)
        EXPECT_EQ(std::memcmp(memory.data() + kSize / 2 + i * 4096, memory.data() + i * 4096, 4096), 0) << i;
}

TEST_P(DmaEngineChoice, TheEngineIsChosenWhileIdleOnly) {
    const skiff_dma_engine_kind other =
        GetParam() == SKIFF_DMA_ENGINE_INLINE ? SKIFF_DMA_ENGINE_THREAD : SKIFF_DMA_ENGINE_INLINE;
    EXPECT_EQ(skiff_dma_set_engine(dma, other), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(engine_of(dma), GetParam());
    ASSERT_EQ(doca_ctx_stop(ctx), DOCA_SUCCESS);
    ASSERT_TRUE(progress_until_state(pe, ctx, DOCA_CTX_STATE_IDLE));
    // An unknown kind (7) is refused too: tests/c/unknown_enum_values.c, since only C can pass one.
    EXPECT_EQ(skiff_dma_set_engine(nullptr, other), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(skiff_dma_get_engine(dma, nullptr), DOCA_ERROR_INVALID_VALUE);
    ASSERT_EQ(skiff_dma_set_engine(dma, other), DOCA_SUCCESS);
    EXPECT_EQ(engine_of(dma), other);

    // The other engine runs copies just as well after a restart.
    resubmit = false;
    ASSERT_EQ(doca_ctx_start(ctx), DOCA_SUCCESS);
    skiff::test::progress_all(pe);
    doca_dma_task_memcpy *task = nullptr;
    ASSERT_EQ(
        doca_dma_task_memcpy_alloc_init(dma, buf(0, 8192, 8192), buf(kSize / 2, 8192, 0), doca_data{}, &task),
        DOCA_SUCCESS);
    submit_task(doca_dma_task_memcpy_as_task(task));
    for (long i = 0; i < 50000000L && completions < 1; ++i) {
        ++progress_calls;
        if (!doca_pe_progress(pe)) std::this_thread::yield();
    }
    EXPECT_EQ(completions, 1);
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(std::memcmp(memory.data() + kSize / 2, memory.data(), 8192), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, DmaEngineChoice,
                         ::testing::Values(SKIFF_DMA_ENGINE_INLINE, SKIFF_DMA_ENGINE_THREAD),
                         [](const auto &info) {
                             return std::string(info.param == SKIFF_DMA_ENGINE_INLINE ? "inline" : "thread");
                         });

TEST(DmaEngineDefault, NewContextsFollowSkiffDmaEngineElseInline) {
    doca_dev *dev = skiff::test::open_dpu_p0();
    ASSERT_NE(dev, nullptr);
    auto engine_of_new_context = [dev] {
        doca_dma *dma = nullptr;
        EXPECT_EQ(doca_dma_create(dev, &dma), DOCA_SUCCESS);
        skiff_dma_engine_kind kind = engine_of(dma);
        EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
        return kind;
    };
    {
        ScopedEnv env("SKIFF_DMA_ENGINE", "thread");
        EXPECT_EQ(engine_of_new_context(), SKIFF_DMA_ENGINE_THREAD);
    }
    {
        ScopedEnv env("SKIFF_DMA_ENGINE", "inline");
        EXPECT_EQ(engine_of_new_context(), SKIFF_DMA_ENGINE_INLINE);
    }
    {
        ScopedEnv env("SKIFF_DMA_ENGINE", "warp-drive"); // logged, then the default
        EXPECT_EQ(engine_of_new_context(), SKIFF_DMA_ENGINE_INLINE);
    }
    {
        ScopedEnv env("SKIFF_DMA_ENGINE", "");
        EXPECT_EQ(engine_of_new_context(), SKIFF_DMA_ENGINE_INLINE);
    }
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

// Four started threaded contexts add one thread to the process, not four; inline ones add none; the
// worker ends with the last threaded context.
TEST(DmaEngineThreads, ThreadedContextsShareOneWorkerAndInlineOnesUseNone) {
    doca_dev *dev = skiff::test::open_dpu_p0();
    ASSERT_NE(dev, nullptr);
    doca_pe *pe = nullptr;
    ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
    auto on_done = [](doca_dma_task_memcpy *, doca_data, doca_data) {};
    std::array<doca_dma *, 6> dmas{};
    for (size_t i = 0; i < dmas.size(); ++i) {
        ASSERT_EQ(doca_dma_create(dev, &dmas[i]), DOCA_SUCCESS);
        ASSERT_EQ(skiff_dma_set_engine(dmas[i], i < 4 ? SKIFF_DMA_ENGINE_THREAD : SKIFF_DMA_ENGINE_INLINE),
                  DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_task_memcpy_set_conf(dmas[i], on_done, on_done, 8), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dmas[i])), DOCA_SUCCESS);
    }
    const size_t before = thread_count();
    for (doca_dma *dma : dmas) ASSERT_EQ(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
    EXPECT_EQ(thread_count(), before + 1);
    for (doca_dma *dma : dmas) ASSERT_EQ(doca_ctx_stop(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
    EXPECT_EQ(thread_count(), before);
    skiff::test::progress_all(pe);
    for (doca_dma *dma : dmas) EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
    EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
}

// Threaded contexts started and stopped on two threads at once, while the shared worker serves the
// other one: attach/detach publish new lists under the worker's sweeps; every copy still lands and
// no stopped context is touched (a use after free shows under ASan).
TEST(DmaEngineThreads, ContextsComingAndGoingWhileTheWorkerRunsLoseNothing) {
    static constexpr int kRounds = 100;
    static constexpr uint32_t kCopies = 32;
    static constexpr size_t kLen = 2048;
    // Devices are opened here: opening one sets SKIFF_SIDE for a moment, not a thing to race.
    doca_dev *devs[2] = {skiff::test::open_dpu_p0(), skiff::test::open_dpu_p0()};
    ASSERT_NE(devs[0], nullptr);
    ASSERT_NE(devs[1], nullptr);
    auto one_thread = [](doca_dev *dev, int seed, long *copied_ok) {
        std::vector<uint8_t> memory(2 * kCopies * kLen);
        doca_mmap *mmap = nullptr;
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
        doca_buf_inventory *inv = nullptr;
        ASSERT_EQ(doca_buf_inventory_create(2 * kCopies, &inv), DOCA_SUCCESS);
        ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
        doca_pe *pe = nullptr;
        ASSERT_EQ(doca_pe_create(&pe), DOCA_SUCCESS);
        doca_dma *dma = nullptr;
        ASSERT_EQ(doca_dma_create(dev, &dma), DOCA_SUCCESS);
        ASSERT_EQ(skiff_dma_set_engine(dma, SKIFF_DMA_ENGINE_THREAD), DOCA_SUCCESS);
        auto on_done = [](doca_dma_task_memcpy *task, doca_data, doca_data ctx_ud) {
            doca_task *t = doca_dma_task_memcpy_as_task(task);
            if (doca_task_get_status(t) == DOCA_SUCCESS) ++*static_cast<long *>(ctx_ud.ptr);
            doca_task_free(t);
        };
        doca_data ud{};
        ud.ptr = copied_ok;
        ASSERT_EQ(doca_ctx_set_user_data(doca_dma_as_ctx(dma), ud), DOCA_SUCCESS);
        ASSERT_EQ(doca_dma_task_memcpy_set_conf(dma, on_done, on_done, kCopies), DOCA_SUCCESS);
        ASSERT_EQ(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)), DOCA_SUCCESS);
        std::vector<doca_buf *> src(kCopies), dst(kCopies);
        for (int round = 0; round < kRounds; ++round) {
            for (size_t i = 0; i < kCopies * kLen; ++i)
                memory[i] = static_cast<uint8_t>(i * 31 + round + seed);
            ASSERT_EQ(doca_ctx_start(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
            const long before = *copied_ok;
            for (uint32_t i = 0; i < kCopies; ++i) {
                uint8_t *s = memory.data() + i * kLen, *d = memory.data() + (kCopies + i) * kLen;
                ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, s, kLen, s, kLen, &src[i]),
                          DOCA_SUCCESS);
                ASSERT_EQ(doca_buf_inventory_buf_get_by_args(inv, mmap, d, kLen, d, 0, &dst[i]),
                          DOCA_SUCCESS);
                doca_dma_task_memcpy *task = nullptr;
                ASSERT_EQ(doca_dma_task_memcpy_alloc_init(dma, src[i], dst[i], doca_data{}, &task),
                          DOCA_SUCCESS);
                ASSERT_EQ(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
            }
            for (long spin = 0; spin < 100000000L && *copied_ok - before < kCopies; ++spin)
                if (!doca_pe_progress(pe)) std::this_thread::yield();
            ASSERT_EQ(*copied_ok - before, kCopies);
            ASSERT_EQ(std::memcmp(memory.data(), memory.data() + kCopies * kLen, kCopies * kLen), 0) << round;
            for (uint32_t i = 0; i < kCopies; ++i) {
                doca_buf_dec_refcount(src[i], nullptr);
                doca_buf_dec_refcount(dst[i], nullptr);
            }
            ASSERT_EQ(doca_ctx_stop(doca_dma_as_ctx(dma)), DOCA_SUCCESS);
            skiff::test::progress_all(pe);
        }
        EXPECT_EQ(doca_dma_destroy(dma), DOCA_SUCCESS);
        EXPECT_EQ(doca_pe_destroy(pe), DOCA_SUCCESS);
        EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
        EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
    };
    long copied[2] = {0, 0};
    std::thread other(one_thread, devs[1], 1, &copied[1]);
    one_thread(devs[0], 2, &copied[0]);
    other.join();
    for (doca_dev *dev : devs) EXPECT_EQ(doca_dev_close(dev), DOCA_SUCCESS);
    EXPECT_EQ(copied[0], long{kRounds} * kCopies);
    EXPECT_EQ(copied[1], long{kRounds} * kCopies);
}
