// Crash consistency of the aio backend: a writer runs against skiff-target on a real file, the
// target is killed with SIGKILL in the middle of the writes, started again on the same file, and
// every write the writer saw acknowledged must read back intact — FUA writes, writes a completed
// Flush covered, and (a process crash loses no page cache) every other acknowledged write too.
// 20 kill / restart cycles in a row; each cycle writes a fresh region of the file, so a write
// that was in flight at the kill (never acknowledged) cannot overwrite an acknowledged one.
//
// What this does not show: power loss. SIGKILL leaves the kernel's caches intact; FUA
// (RWF_DSYNC) and Flush (fdatasync) are what makes data survive a power cut, and that needs a
// machine to switch off (the lab).
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

using namespace skiff;
using namespace skiff::itest;

namespace {

constexpr uint32_t kCycles = 20;
constexpr uint64_t kFileBytes = 64ull << 20;
constexpr uint32_t kWriteBytes = 4096;
constexpr uint32_t kNlb = kWriteBytes / kBlock;
constexpr uint64_t kSlots = kFileBytes / kWriteBytes;
constexpr uint64_t kSlotsPerCycle = kSlots / kCycles;
constexpr uint32_t kFuaEvery = 4;   // every 4th write carries FUA
constexpr uint32_t kFlushEvery = 8; // a Flush after every 8th write

enum class Durability : uint8_t { kAcknowledged, kFlushed, kFua };

struct Acked {
    uint64_t slot;
    uint32_t seed;
    Durability why;
};

uint32_t seed_of(uint32_t cycle, uint64_t slot) {
    return static_cast<uint32_t>(slot * 131 + cycle + 1);
}

// Write with the FUA bit (CDW12 bit 30) on I/O queue 0; the completion's status, or the
// transport error once the target is gone.
Result<uint16_t> write_fua(nvmeof::host::Controller &c, uint64_t lba, const std::vector<uint8_t> &data) {
    nvmeof::wire::Sqe sqe = nvmeof::host::cmd::write(1, lba, kNlb);
    sqe.cdw12 |= uint32_t(NVME_IO_FUA) << 16;
    auto done = c.io_queue(0).execute(sqe, nvmeof::host::DataDir::kHostToController,
                                      const_cast<uint8_t *>(data.data()), kWriteBytes);
    if (!done) return done.error();
    return done->status();
}

class CrashConsistency : public TargetTest {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-crash-itest-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        file_ = dir_ + "/ns1.img";
    }
    void TearDown() override {
        TargetTest::TearDown();
        std::filesystem::remove_all(dir_);
    }
    void start_on_file() {
        io_port_ = disc_port_ = 0;
        start_target({"--backend", "aio", "--path", file_, "--size", "64MiB", "--discovery", "none"});
    }

    // Writes slots of `cycle` until the target dies under it (killed by another thread once
    // `kill_after` writes are acknowledged). Returns what was acknowledged, and how.
    std::vector<Acked> write_until_killed(uint32_t cycle, uint32_t kill_after) {
        auto ctrl = connect(options());
        if (!ctrl) return {};
        std::atomic<bool> go{false};
        std::thread killer([&] {
            go.wait(false);
            target_->kill_now();
        });
        std::vector<Acked> acked;
        size_t unflushed = 0; // acked[unflushed..] are not covered by a completed Flush yet
        const uint64_t first = uint64_t(cycle) * kSlotsPerCycle;
        for (uint64_t i = 0; i < kSlotsPerCycle; ++i) {
            const uint64_t slot = first + i;
            const uint32_t seed = seed_of(cycle, slot);
            const auto data = pattern(kWriteBytes, seed);
            const bool fua = i % kFuaEvery == kFuaEvery - 1;
            bool ok;
            if (fua) {
                auto st = write_fua(*ctrl, slot * kNlb, data);
                ok = st.ok() && *st == 0;
            } else {
                ok = ctrl->write(0, 1, slot * kNlb, kNlb, data.data(), kWriteBytes).ok();
            }
            if (!ok) break; // the target is gone: this write was never acknowledged
            acked.push_back({slot, seed, fua ? Durability::kFua : Durability::kAcknowledged});
            if (i % kFlushEvery == kFlushEvery - 1) {
                if (!ctrl->flush(0, 1).ok()) break;
                for (; unflushed < acked.size(); ++unflushed)
                    if (acked[unflushed].why == Durability::kAcknowledged)
                        acked[unflushed].why = Durability::kFlushed;
            }
            if (acked.size() == kill_after) {
                go = true;
                go.notify_one();
            }
        }
        go = true; // region exhausted before the kill (not expected): kill anyway
        go.notify_one();
        killer.join();
        return acked;
    }

    std::string dir_, file_;
};

TEST_F(CrashConsistency, AcknowledgedWritesSurviveTwentySigkillsInARow) {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<uint32_t> kill_after(40, static_cast<uint32_t>(kSlotsPerCycle / 2));
    std::vector<Acked> all;
    size_t counts[3] = {};
    for (uint32_t cycle = 0; cycle < kCycles; ++cycle) {
        SCOPED_TRACE("cycle " + std::to_string(cycle));
        start_on_file();
        // aio has a volatile cache (page cache or the disk's): hosts must be told to flush.
        {
            auto ctrl = connect(options());
            ASSERT_NE(ctrl, nullptr);
            auto id = ctrl->identify_controller();
            ASSERT_OK(id);
            EXPECT_TRUE(id->vwc & NVME_CTRL_VWC_PRESENT);
        }
        const uint32_t k = kill_after(rng);
        std::vector<Acked> acked = write_until_killed(cycle, k);
        ASSERT_GE(acked.size(), k) << "the writer stopped before the kill";
        EXPECT_FALSE(target_->running());
        target_.reset(); // killed: no clean exit to expect
        for (const Acked &a : acked) ++counts[int(a.why)];
        all.insert(all.end(), acked.begin(), acked.end());

        // Restart on the same file and read back everything acknowledged so far.
        start_on_file();
        auto ctrl = connect(options());
        ASSERT_NE(ctrl, nullptr);
        std::vector<uint8_t> back(kWriteBytes);
        size_t lost = 0;
        for (const Acked &a : all) {
            ASSERT_OK(ctrl->read(0, 1, a.slot * kNlb, kNlb, back.data(), kWriteBytes));
            if (back != pattern(kWriteBytes, a.seed)) {
                if (lost++ < 5)
                    ADD_FAILURE() << "slot " << a.slot << " ("
                                  << (a.why == Durability::kFua       ? "FUA"
                                      : a.why == Durability::kFlushed ? "flushed"
                                                                      : "acknowledged")
                                  << " write) does not read back after the kill";
            }
        }
        ASSERT_EQ(lost, 0u) << "acknowledged writes lost";
        ctrl.reset();
        ASSERT_EQ(target_->stop(), 0) << target_->log();
        target_.reset();
    }
    std::printf("crash consistency: %u SIGKILL cycles, %zu acknowledged writes verified (%zu FUA, %zu "
                "covered by a Flush, %zu acknowledged only)\n",
                kCycles, all.size(), counts[int(Durability::kFua)], counts[int(Durability::kFlushed)],
                counts[int(Durability::kAcknowledged)]);
}

} // namespace
