// QoS token buckets with the clock driven by the test: the shared bucket's rate and burst, the
// queues' chunked refill (one shared operation per chunk, not per I/O), and two queues sharing
// one limit.
#include "skiff/nvmeof/target/qos_bucket.hpp"
#include "skiff/nvmeof/target/qos_policy.hpp"

#include <gtest/gtest.h>

namespace skiff::nvmeof::target {
namespace {

constexpr uint64_t kSec = 1'000'000'000;
constexpr uint64_t kStart = 10 * kSec; // an arbitrary monotonic time

// Spends one token (an I/O) from `local` whenever it can, at every `step_ns` from `from` for
// `for_ns`: how many it spent.
uint64_t run_greedy(QosSharedBucket &shared, QosLocalTokens &local, uint64_t from, uint64_t for_ns,
                    uint64_t step_ns, uint64_t *shared_takes = nullptr) {
    uint64_t done = 0;
    for (uint64_t t = from; t < from + for_ns; t += step_ns) {
        uint64_t wait = 0;
        for (;;) {
            const uint64_t before = local.tokens;
            if (!local.ensure(shared, 1, t, &wait)) break;
            if (shared_takes && local.tokens != before) ++*shared_takes;
            local.spend(1);
            ++done;
        }
    }
    return done;
}

TEST(QosBucket, OneQueueGetsTheWholeRateAndNoMore) {
    QosSharedBucket shared;
    shared.set_rate(5000, kStart);
    QosLocalTokens local;
    uint64_t takes = 0;
    const uint64_t done = run_greedy(shared, local, kStart, kSec, 10'000, &takes);
    // The full rate, give or take one chunk (5 I/Os) held locally at the end.
    EXPECT_GE(done, 5000u - 10);
    EXPECT_LE(done, 5000u + 5);
    // About a chunk (1 ms worth) per shared operation, not one per I/O.
    EXPECT_LE(takes, 1100u);
}

TEST(QosBucket, TwoQueuesShareOneLimit) {
    QosSharedBucket shared;
    shared.set_rate(2000, kStart);
    QosLocalTokens a, b;
    uint64_t done_a = 0, done_b = 0;
    // a always asks first: reservations line up in time, so b still gets its turns.
    for (uint64_t t = kStart; t < kStart + kSec; t += 50'000) {
        done_a += run_greedy(shared, a, t, 1, 1);
        done_b += run_greedy(shared, b, t, 1, 1);
    }
    EXPECT_LE(done_a + done_b, 2000u + 6);
    EXPECT_GE(done_a + done_b, 2000u - 10);
    EXPECT_GT(done_a, 500u); // both got a share
    EXPECT_GT(done_b, 500u);
}

TEST(QosBucket, AnIdleBucketSavesAtMostTheBurst) {
    QosSharedBucket shared;
    shared.set_rate(1000, kStart);
    QosLocalTokens local;
    // Ten idle seconds, then everything at once: the burst (20 ms = 20 I/Os) and one chunk.
    const uint64_t burst = run_greedy(shared, local, kStart + 10 * kSec, 1, 1);
    EXPECT_GE(burst, 20u);
    EXPECT_LE(burst, 22u);
}

TEST(QosBucket, ReservationsLineUpInTime) {
    QosSharedBucket shared;
    shared.set_rate(100, kStart); // 10 ms a token
    EXPECT_EQ(shared.reserve(1, kStart), kStart);
    EXPECT_EQ(shared.reserve(1, kStart), kStart + 10'000'000);
    EXPECT_EQ(shared.reserve(1, kStart + 4'000'000), kStart + 20'000'000);
    EXPECT_EQ(shared.reserve(1, kStart + 100'000'000), kStart + 100'000'000);
}

TEST(QosBucket, AQueueWaitsForItsReservationAndHoldsOneAtATime) {
    QosSharedBucket shared;
    shared.set_rate(100, kStart);
    QosLocalTokens local;
    uint64_t wait = 0;
    ASSERT_TRUE(local.ensure(shared, 1, kStart, &wait)); // chunk: 1 token + the one it needs
    local.spend(1);
    ASSERT_TRUE(local.ensure(shared, 1, kStart, &wait));
    local.spend(1);
    EXPECT_FALSE(local.ensure(shared, 1, kStart, &wait)); // reserves the next two: due in 20 ms
    EXPECT_EQ(wait, 20'000'000u);
    EXPECT_FALSE(local.ensure(shared, 1, kStart + 5'000'000, &wait)); // no second reservation
    EXPECT_EQ(wait, 15'000'000u);
    EXPECT_EQ(shared.reserve(1, kStart + 5'000'000), kStart + 40'000'000); // others queue behind
    EXPECT_TRUE(local.ensure(shared, 1, kStart + 20'000'000, &wait));
}

TEST(QosBucket, OneIoLargerThanTheBurstStillGoesThenTheNextWaitsItsTime) {
    QosSharedBucket shared;
    shared.set_rate(1 << 20, kStart); // 1 MiB/s: a 4 MiB I/O is 4 s of tokens
    EXPECT_EQ(shared.reserve(4 << 20, kStart), kStart);
    EXPECT_EQ(shared.reserve(1, kStart + kSec), kStart + 4 * kSec);
}

TEST(QosBucket, ANewRateForgetsTheOldReservations) {
    QosSharedBucket shared;
    shared.set_rate(1, kStart);
    QosLocalTokens local;
    uint64_t wait = 0;
    ASSERT_TRUE(local.ensure(shared, 1, kStart, &wait));
    local.spend(1);
    local.spend(1);
    EXPECT_FALSE(local.ensure(shared, 1, kStart, &wait)); // two seconds at 1 per second
    shared.set_rate(1000, kStart + 1000);
    EXPECT_TRUE(local.ensure(shared, 1, kStart + 1000, &wait));
}

TEST(QosBucket, NoLimitGrantsEverything) {
    QosSharedBucket shared;
    QosLocalTokens local;
    uint64_t wait = 0;
    for (int i = 0; i < 1000; ++i) EXPECT_TRUE(local.ensure(shared, 1 << 20, kStart, &wait));
    EXPECT_EQ(local.tokens, 0u); // nothing taken, nothing to spend
}

TEST(QosBucket, CostRoundsUpSoTheRateIsNeverExceeded) {
    EXPECT_EQ(QosSharedBucket::cost_ns(1, 3), 333'333'334u);
    EXPECT_EQ(QosSharedBucket::cost_ns(1'000'000, 1'000'000), kSec);
    // 1 GiB at 100 GB/s: no overflow in the product.
    EXPECT_EQ(QosSharedBucket::cost_ns(uint64_t(1) << 30, 100'000'000'000u), 10'737'419u);
}

TEST(QosPolicy, HostBudgetsComeAndGoAndActiveFollowsEveryLimit) {
    QosPolicy p;
    EXPECT_FALSE(p.active());
    QosLimits host;
    host.ios_per_sec[size_t(QosDir::kRead)] = 100;
    ASSERT_TRUE(p.set({}, {{"nqn.h1", host}}, kStart));
    EXPECT_TRUE(p.active()); // a host's limit alone turns QoS on
    ASSERT_NE(p.host_budget("nqn.h1"), nullptr);
    EXPECT_EQ(p.host_budget("nqn.h2"), nullptr);
    EXPECT_EQ(p.host_limits().size(), 1u);
    const uint64_t gen = p.generation();
    ASSERT_TRUE(p.set({}, {}, kStart));
    EXPECT_FALSE(p.active());
    EXPECT_GT(p.generation(), gen);
    EXPECT_TRUE(p.host_limits().empty());
    // The budget stays (a queue may point at it), without limits.
    ASSERT_NE(p.host_budget("nqn.h1"), nullptr);
    EXPECT_FALSE(p.host_budget("nqn.h1")->limits().any());
}

TEST(QosPolicy, RefusesMoreHostsThanItKeeps) {
    QosPolicy p;
    QosLimits l;
    l.ios_per_sec[0] = 1;
    QosPolicy::HostLimits hosts;
    for (size_t i = 0; i <= QosPolicy::kMaxQosHosts; ++i) hosts.emplace_back("nqn.h" + std::to_string(i), l);
    EXPECT_FALSE(p.set({}, hosts, kStart));
    EXPECT_FALSE(p.active());
    hosts.pop_back();
    EXPECT_TRUE(p.set({}, hosts, kStart));
}

} // namespace
} // namespace skiff::nvmeof::target
