// Grace periods on the DPA's execution units (skiff/core/dpa_quiescence.hpp): a snapshot taken
// while a kernel runs is passed only once that EU moved on; a snapshot of idle EUs is passed at
// once. The NVMe target's live namespace removal relies on this in the dpa data path.
#include "dpa_support.hpp"

#include "skiff/core/dpa_quiescence.hpp"

#include <atomic>
#include <vector>

namespace {

using skiff::core::dpa::append_eu_run_sequences;
using skiff::core::dpa::eu_passed;
using skiff::test::dpa_fn;
using skiff::test::eventually;

std::atomic<bool> g_entered{false};
std::atomic<bool> g_release{false};

// Holds its EU until the host releases it (a command in the middle of a namespace lookup).
void holding_kernel() {
    g_entered.store(true);
    while (!g_release.load()) {
    }
}

struct DpaQuiescence : skiff::test::DpaTest {
    void SetUp() override {
        DpaTest::SetUp();
        kernel(&holding_kernel, 0, "holding_kernel");
        start();
        g_entered = false;
        g_release = false;
    }
    std::vector<uint64_t> sequences() {
        std::vector<uint64_t> out;
        append_eu_run_sequences(dpa, out);
        return out;
    }
    static bool all_passed(const std::vector<uint64_t> &then, const std::vector<uint64_t> &now) {
        for (size_t i = 0; i < then.size() && i < now.size(); ++i)
            if (!eu_passed(then[i], now[i])) return false;
        return true;
    }
};

TEST_F(DpaQuiescence, OneSequencePerEuAndIdleEusHavePassedAtOnce) {
    auto snap = sequences();
    ASSERT_EQ(snap.size(), 2u); // DpaTest starts two EUs
    for (uint64_t s : snap) EXPECT_EQ(s % 2, 0u) << "an idle EU's sequence is even";
    EXPECT_TRUE(all_passed(snap, sequences()));
}

TEST_F(DpaQuiescence, ASnapshotDuringARunIsPassedOnlyAfterTheRunEnds) {
    ASSERT_EQ(doca_dpa_kernel_launch_update_add(dpa, nullptr, 0, nullptr, 0, 1, dpa_fn(&holding_kernel)),
              DOCA_SUCCESS);
    ASSERT_TRUE(eventually([] { return g_entered.load(); }));
    auto snap = sequences();
    size_t running = 0;
    for (uint64_t s : snap) running += s % 2;
    EXPECT_EQ(running, 1u) << "exactly the EU running the kernel is odd";
    EXPECT_FALSE(all_passed(snap, sequences())) << "the kernel still runs";
    g_release = true;
    EXPECT_TRUE(eventually([&] { return all_passed(snap, sequences()); }));
}

TEST_F(DpaQuiescence, AStoppedOrMissingDpaAppendsNothing) {
    std::vector<uint64_t> out;
    append_eu_run_sequences(nullptr, out);
    EXPECT_TRUE(out.empty());
}

} // namespace
