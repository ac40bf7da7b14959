// The initiator's data path allocates nothing: after connect, submit/poll/pop of reads and
// writes (in-capsule, R2T + H2CData, C2HData) against skiff-target run with zero calls to
// operator new on the I/O thread. Counted by replacing the global operator new in this binary.
// This file's operator delete frees what its operator new mallocs; GCC cannot see that pairing
// where it inlines them.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local bool g_counting = false;
thread_local size_t g_allocations = 0;
} // namespace

void *operator new(size_t n) {
    if (g_counting) ++g_allocations;
    if (void *p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void *operator new[](size_t n) {
    if (g_counting) ++g_allocations;
    if (void *p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
// The nothrow forms too, so no non-aligned allocation pairs this file's free() with another
// allocator's new (the sanitizer build reports such mismatches). Aligned forms stay as they are.
void *operator new(size_t n, const std::nothrow_t &) noexcept {
    if (g_counting) ++g_allocations;
    return std::malloc(n ? n : 1);
}
void *operator new[](size_t n, const std::nothrow_t &) noexcept {
    if (g_counting) ++g_allocations;
    return std::malloc(n ? n : 1);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
    std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
    std::free(p);
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete[](void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, size_t) noexcept {
    std::free(p);
}
void operator delete[](void *p, size_t) noexcept {
    std::free(p);
}

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

using integration_data_path = TargetTest;

TEST_F(integration_data_path, SubmitAndPollAllocateNothing) {
    start_target();
    ConnectOptions o = options();
    o.io_queue_size = 17;
    o.header_digest = o.data_digest = true;
    o.auto_keep_alive = false;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    TcpQueue &q = ctrl->io_queue(0);

    // 16 slots: sizes cycle through in-capsule (4 KiB), R2T (128 KiB) and reads of both.
    constexpr uint32_t kDepth = 16;
    std::vector<std::vector<uint8_t>> bufs(kDepth, std::vector<uint8_t>(128 * 1024, 0x5A));
    uint64_t issued = 0;
    auto submit = [&](uint32_t slot) {
        const bool big = issued % 3 == 0, write = issued % 2 == 0;
        const uint32_t bytes = big ? 128 * 1024 : 4096;
        const uint64_t lba = (issued % 64) * 256;
        ++issued;
        const wire::Sqe sqe = write ? cmd::write(1, lba, bytes / kBlock) : cmd::read(1, lba, bytes / kBlock);
        return q.submit(sqe, write ? DataDir::kHostToController : DataDir::kControllerToHost,
                        bufs[slot].data(), bytes, slot);
    };
    auto run = [&](uint64_t completions) -> std::string {
        uint64_t done = 0;
        while (done < completions) {
            Result<uint32_t> n = q.poll(std::chrono::seconds(10));
            if (!n) return n.error().describe();
            if (*n == 0) return "no completion within 10 s";
            Completion c;
            while (q.pop_completion(c)) {
                if (!c.nvme_ok()) return "NVMe error status";
                ++done;
                if (!submit(static_cast<uint32_t>(c.tag)).ok()) return "submit failed";
            }
        }
        return "";
    };
    for (uint32_t i = 0; i < kDepth; ++i) ASSERT_OK(submit(i));
    ASSERT_EQ(run(200), "") << "warm-up";

    g_allocations = 0;
    g_counting = true;
    const std::string error = run(3000);
    g_counting = false;
    ASSERT_EQ(error, "");
    EXPECT_EQ(g_allocations, 0u) << "operator new calls on the I/O thread during 3000 commands";
    EXPECT_GT(q.counters().r2ts, 0u);
    EXPECT_GT(q.counters().in_capsule_writes, 0u);
    EXPECT_GT(q.counters().c2h_pdus, 0u);

    // Drain what is still in flight before the controller goes away.
    while (q.outstanding() > 0) {
        Result<uint32_t> n = q.poll(std::chrono::seconds(10));
        ASSERT_OK(n);
        ASSERT_GT(*n, 0u);
        Completion c;
        while (q.pop_completion(c)) {
        }
    }
}
