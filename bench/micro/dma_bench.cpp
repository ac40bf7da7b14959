// DMA engine micro-benchmarks, for both emulated engines (inline: copies run inside
// doca_pe_progress; thread: on the shared worker thread): memcpy-task throughput for 64 B .. 1 MiB
// next to a plain memcpy of the same sizes over the same buffers, and the cost per task of
// submit + progress + callback. At the end it prints, for 4 KiB .. 1 MiB, each engine's DMA /
// memcpy throughput ratio (medians with --benchmark_repetitions=N) and the overhead per 4 KiB task
// (the DMA task's time minus the memcpy's). Measures only; never fails. The threaded engine's two
// spinning threads (the application and the worker) need two free cores: on a busy machine its
// numbers drop.
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <benchmark/benchmark.h>

#include <poll.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kMaxSize = 1 << 20;
constexpr uint32_t kDepth = 8;      // tasks kept in flight by the throughput benchmarks
constexpr uint32_t kMaxTasks = 256; // deepest pipeline of the overhead benchmark

// A running DMA context with `slots` tasks' worth of buffers: task i copies src[i] into dst[i].
// Every completion empties the destination and resubmits the task while `resubmit` is set.
class DmaRig {
  public:
    DmaRig(size_t slot_size, uint32_t slots, skiff_dma_engine_kind engine)
        : slot_(slot_size), slots_(slots), engine_(engine), memory_(2 * slots * slot_size), src_(slots),
          dst_(slots) {
        std::memset(memory_.data(), 0x3c, memory_.size());
        ok_ = open_device() && doca_mmap_create(&mmap_) == DOCA_SUCCESS &&
              doca_mmap_set_memrange(mmap_, memory_.data(), memory_.size()) == DOCA_SUCCESS &&
              doca_mmap_add_dev(mmap_, dev_) == DOCA_SUCCESS && doca_mmap_start(mmap_) == DOCA_SUCCESS &&
              doca_buf_inventory_create(2 * slots_, &inv_) == DOCA_SUCCESS &&
              doca_buf_inventory_start(inv_) == DOCA_SUCCESS && doca_pe_create(&pe_) == DOCA_SUCCESS &&
              doca_dma_create(dev_, &dma_) == DOCA_SUCCESS && configure() && start();
        for (uint32_t i = 0; ok_ && i < slots_; ++i) {
            ok_ = doca_buf_inventory_buf_get_by_data(inv_, mmap_, src(i), slot_, &src_[i]) == DOCA_SUCCESS &&
                  doca_buf_inventory_buf_get_by_addr(inv_, mmap_, dst(i), slot_, &dst_[i]) == DOCA_SUCCESS;
        }
    }
    ~DmaRig() {
        if (dma_) {
            resubmit = false;
            while (inflight() > 0) doca_pe_progress(pe_);
            for (auto *t : tasks_) doca_task_free(doca_dma_task_memcpy_as_task(t));
            doca_ctx_stop(doca_dma_as_ctx(dma_));
            while (doca_pe_progress(pe_)) {
            }
        }
        for (uint32_t i = 0; i < slots_; ++i) {
            if (src_[i]) doca_buf_dec_refcount(src_[i], nullptr);
            if (dst_[i]) doca_buf_dec_refcount(dst_[i], nullptr);
        }
        if (dma_) doca_dma_destroy(dma_);
        if (pe_) doca_pe_destroy(pe_);
        if (inv_) doca_buf_inventory_destroy(inv_);
        if (mmap_) doca_mmap_destroy(mmap_);
        if (dev_) doca_dev_close(dev_);
    }

    bool ok() const { return ok_; }
    uint8_t *src(uint32_t i) { return memory_.data() + i * slot_; }
    uint8_t *dst(uint32_t i) { return memory_.data() + (slots_ + i) * slot_; }

    // Starts one task per slot.
    void launch() {
        for (uint32_t i = 0; i < slots_; ++i) {
            doca_dma_task_memcpy *task = nullptr;
            doca_data ud{};
            ud.u64 = i;
            doca_dma_task_memcpy_alloc_init(dma_, src_[i], dst_[i], ud, &task);
            tasks_.push_back(task);
            doca_task_submit(doca_dma_task_memcpy_as_task(task));
        }
    }
    // Progresses until one more task completed.
    void complete_one() {
        // Yield after a burst of empty polls: on a machine with fewer free cores than busy threads
        // the engine's worker needs this CPU to make the progress we are waiting for.
        const long target = completed + 1;
        for (int empty = 0; completed < target;) {
            if (doca_pe_progress(pe_)) continue;
            if (++empty % 64 == 0) std::this_thread::yield();
        }
    }

    // Notification mode: sleeps in poll() on the engine's fd until at least one more task completed.
    void complete_one_notified() {
        const long target = completed + 1;
        doca_notification_handle_t fd = -1;
        doca_pe_get_notification_handle(pe_, &fd);
        while (completed < target) {
            doca_pe_request_notification(pe_);
            pollfd pfd{fd, POLLIN, 0};
            poll(&pfd, 1, -1);
            doca_pe_clear_notification(pe_, fd);
            // Not "until progress finds nothing": every completion resubmits its task, and the
            // inline engine runs that copy in the next progress call, so there is always more.
            while (completed < target && doca_pe_progress(pe_)) {
            }
        }
    }

    long completed = 0;
    bool resubmit = true;

  private:
    static void on_done(doca_dma_task_memcpy *task, doca_data, doca_data ctx_ud) {
        auto *rig = static_cast<DmaRig *>(ctx_ud.ptr);
        ++rig->completed;
        if (!rig->resubmit) return;
        doca_buf_reset_data_len(doca_dma_task_memcpy_get_dst(task));
        doca_task_submit(doca_dma_task_memcpy_as_task(task));
    }
    bool open_device() {
        doca_devinfo **list = nullptr;
        uint32_t n = 0;
        if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return false;
        for (uint32_t i = 0; i < n && !dev_; ++i)
            if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS) doca_dev_open(list[i], &dev_);
        doca_devinfo_destroy_list(list);
        return dev_ != nullptr;
    }
    bool configure() {
        doca_data ud{};
        ud.ptr = this;
        return skiff_dma_set_engine(dma_, engine_) == DOCA_SUCCESS &&
               doca_ctx_set_user_data(doca_dma_as_ctx(dma_), ud) == DOCA_SUCCESS &&
               doca_dma_task_memcpy_set_conf(dma_, on_done, on_done, slots_) == DOCA_SUCCESS &&
               doca_pe_connect_ctx(pe_, doca_dma_as_ctx(dma_)) == DOCA_SUCCESS;
    }
    bool start() {
        if (doca_ctx_start(doca_dma_as_ctx(dma_)) != DOCA_SUCCESS) return false;
        while (doca_pe_progress(pe_)) {
        }
        return true;
    }
    size_t inflight() const {
        size_t n = 0;
        doca_pe_get_num_inflight_tasks(pe_, &n);
        return n;
    }

    size_t slot_;
    uint32_t slots_;
    skiff_dma_engine_kind engine_;
    std::vector<uint8_t> memory_;
    bool ok_ = false;
    doca_dev *dev_ = nullptr;
    doca_mmap *mmap_ = nullptr;
    doca_buf_inventory *inv_ = nullptr;
    doca_pe *pe_ = nullptr;
    doca_dma *dma_ = nullptr;
    std::vector<doca_buf *> src_;
    std::vector<doca_buf *> dst_;
    std::vector<doca_dma_task_memcpy *> tasks_;
};

void BM_Memcpy(benchmark::State &state) {
    const size_t size = static_cast<size_t>(state.range(0));
    std::vector<uint8_t> memory(2 * kDepth * size, 0x3c);
    uint32_t slot = 0;
    for (auto _ : state) {
        std::memcpy(memory.data() + (kDepth + slot) * size, memory.data() + slot * size, size);
        benchmark::ClobberMemory();
        slot = (slot + 1) % kDepth;
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

// Throughput: kDepth copies in flight, one completion per iteration.
template <skiff_dma_engine_kind Engine>
void BM_DmaMemcpy(benchmark::State &state) {
    const size_t size = static_cast<size_t>(state.range(0));
    DmaRig rig(size, kDepth, Engine);
    if (!rig.ok()) return state.SkipWithError("DMA setup failed");
    rig.launch();
    for (auto _ : state) rig.complete_one();
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
}

// The same in notification mode: the application thread sleeps in poll() between completions.
template <skiff_dma_engine_kind Engine>
void BM_DmaMemcpyNotified(benchmark::State &state) {
    const size_t size = static_cast<size_t>(state.range(0));
    DmaRig rig(size, kDepth, Engine);
    if (!rig.ok()) return state.SkipWithError("DMA setup failed");
    rig.launch();
    for (auto _ : state) rig.complete_one_notified();
    state.SetBytesProcessed(static_cast<int64_t>(rig.completed * size));
}

// Cost per task of submit + engine + progress + callback, for an 8-byte copy, with the given number
// of tasks in flight: for the threaded engine 1 is a round trip through the worker, more pipelines.
template <skiff_dma_engine_kind Engine>
void BM_TaskOverhead(benchmark::State &state) {
    const auto depth = static_cast<uint32_t>(state.range(0));
    DmaRig rig(8, depth, Engine);
    if (!rig.ok()) return state.SkipWithError("DMA setup failed");
    rig.launch();
    for (auto _ : state) rig.complete_one();
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

constexpr auto kInline = SKIFF_DMA_ENGINE_INLINE;
constexpr auto kThread = SKIFF_DMA_ENGINE_THREAD;

BENCHMARK(BM_Memcpy)->RangeMultiplier(4)->Range(64, kMaxSize)->UseRealTime();
BENCHMARK(BM_DmaMemcpy<kInline>)
    ->Name("BM_DmaMemcpy/inline")
    ->RangeMultiplier(4)
    ->Range(64, kMaxSize)
    ->UseRealTime();
BENCHMARK(BM_DmaMemcpy<kThread>)
    ->Name("BM_DmaMemcpy/thread")
    ->RangeMultiplier(4)
    ->Range(64, kMaxSize)
    ->UseRealTime();
BENCHMARK(BM_DmaMemcpyNotified<kInline>)
    ->Name("BM_DmaMemcpyNotified/inline")
    ->RangeMultiplier(16)
    ->Range(4096, kMaxSize)
    ->UseRealTime();
BENCHMARK(BM_DmaMemcpyNotified<kThread>)
    ->Name("BM_DmaMemcpyNotified/thread")
    ->RangeMultiplier(16)
    ->Range(4096, kMaxSize)
    ->UseRealTime();
BENCHMARK(BM_TaskOverhead<kInline>)
    ->Name("BM_TaskOverhead/inline")
    ->Arg(1)
    ->Arg(kDepth)
    ->Arg(64)
    ->Arg(kMaxTasks)
    ->UseRealTime();
BENCHMARK(BM_TaskOverhead<kThread>)
    ->Name("BM_TaskOverhead/thread")
    ->Arg(1)
    ->Arg(kDepth)
    ->Arg(64)
    ->Arg(kMaxTasks)
    ->UseRealTime();

// Prints every run as usual and remembers throughputs (the median when repetitions are asked for)
// for the ratio table.
class RatioReporter : public benchmark::ConsoleReporter {
  public:
    void ReportRuns(const std::vector<Run> &runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run &run : runs) {
            auto it = run.counters.find("bytes_per_second");
            if (it == run.counters.end()) continue;
            const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
            if (run.run_type == Run::RT_Aggregate && !median) continue;
            std::string name = run.run_name.str(); // without the aggregate suffix
            if (median || !medians_.count(name)) rates_[name] = it->second.value;
            if (median) medians_.insert(name);
        }
    }
    // 4 KiB .. 1 MiB: throughput and the DMA / memcpy ratio of each engine, then each engine's
    // overhead per 4 KiB task (its time per task minus memcpy's).
    void print_ratios() const {
        std::printf("\n%-9s %11s %11s %8s %11s %8s %13s %8s\n", "size", "memcpy GB/s", "inline GB/s",
                    "inl/cpy", "thread GB/s", "thr/cpy", "thr ntf GB/s", "ntf/cpy");
        for (size_t size = 4096; size <= kMaxSize; size *= 4) {
            double cpu = rate("BM_Memcpy", "", size);
            double in = rate("BM_DmaMemcpy", "/inline", size), th = rate("BM_DmaMemcpy", "/thread", size);
            double ntf = rate("BM_DmaMemcpyNotified", "/thread", size);
            if (cpu <= 0) continue;
            std::printf("%-9zu %11.2f", size, cpu / 1e9);
            for (double dma : {in, th}) { // "-" for an engine whose benchmark was filtered out
                if (dma > 0)
                    std::printf(" %11.2f %7.1f%%", dma / 1e9, 100.0 * dma / cpu);
                else
                    std::printf(" %11s %8s", "-", "-");
            }
            if (ntf > 0) std::printf(" %13.2f %7.1f%%", ntf / 1e9, 100.0 * ntf / cpu);
            std::printf("\n");
        }
        const double cpu = rate("BM_Memcpy", "", 4096);
        for (const char *engine : {"/inline", "/thread"}) {
            const double dma = rate("BM_DmaMemcpy", engine, 4096);
            if (cpu > 0 && dma > 0)
                std::printf(
                    "overhead per 4 KiB task, %s engine: %.0f ns (%.0f ns per task, memcpy %.0f ns)\n",
                    engine + 1, 4096e9 / dma - 4096e9 / cpu, 4096e9 / dma, 4096e9 / cpu);
        }
    }

  private:
    double rate(const char *benchmark, const char *engine, size_t size) const {
        auto it = rates_.find(std::string(benchmark) + engine + "/" + std::to_string(size) + "/real_time");
        return it == rates_.end() ? 0.0 : it->second;
    }

    std::map<std::string, double> rates_;
    std::set<std::string> medians_;
};

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    RatioReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    reporter.print_ratios();
    benchmark::Shutdown();
    return 0;
}
