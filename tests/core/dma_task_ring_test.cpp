// The threaded DMA engine's hand-off ring (core/src/dma/task_ring.hpp, internal, header only):
// capacity, partial pushes when full, wrap-around, and order and completeness with a real producer
// thread and a real consumer thread.
#include "../../core/src/dma/task_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

using skiff::core::dma::TaskRing;

TEST(DmaTaskRing, HoldsItsCapacityRoundedUpToAPowerOfTwoAndTakesPartOfAPushThatDoesNotFit) {
    TaskRing<uintptr_t> ring(6); // room for 8
    std::vector<uintptr_t> items{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    EXPECT_FALSE(ring.readable());
    EXPECT_EQ(ring.push(items.data(), 10), 8u);
    EXPECT_FALSE(ring.push(uintptr_t{99}));
    uintptr_t out[16] = {};
    EXPECT_EQ(ring.pop(out, 3), 3u);
    EXPECT_EQ(out[0], 1u);
    EXPECT_EQ(out[2], 3u);
    EXPECT_TRUE(ring.push(uintptr_t{9})); // the producer's copy said full: it looks again
    // The consumer works from its copy of the producer's index until that runs out: the 9 comes
    // with the next pop.
    EXPECT_EQ(ring.pop(out, 16), 5u);
    EXPECT_EQ(out[0], 4u);
    EXPECT_EQ(out[4], 8u);
    EXPECT_TRUE(ring.readable());
    EXPECT_EQ(ring.pop(out, 16), 1u);
    EXPECT_EQ(out[0], 9u);
    EXPECT_FALSE(ring.readable());
    EXPECT_EQ(ring.pop(out, 16), 0u);
}

TEST(DmaTaskRing, KeepsOrderAcrossManyWrapArounds) {
    TaskRing<uintptr_t> ring(4);
    uintptr_t next_in = 0, next_out = 0, out[4];
    for (int round = 0; round < 1000; ++round) {
        uintptr_t batch[3] = {next_in, next_in + 1, next_in + 2};
        size_t n = ring.push(batch, 1 + round % 3);
        next_in += n;
        size_t got = ring.pop(out, 1 + round % 4);
        for (size_t i = 0; i < got; ++i) ASSERT_EQ(out[i], next_out++);
    }
    for (size_t got; (got = ring.pop(out, 4)) != 0;)
        for (size_t i = 0; i < got; ++i) ASSERT_EQ(out[i], next_out++);
    EXPECT_EQ(next_out, next_in);
}

// A producer thread and a consumer thread, as in the engine: every item arrives once, in order.
TEST(DmaTaskRing, DeliversEveryItemInOrderBetweenTwoThreads) {
    constexpr uintptr_t kItems = 2'000'000;
    TaskRing<uintptr_t> ring(64);
    std::thread producer([&] {
        uintptr_t next = 1, batch[5];
        while (next <= kItems) {
            size_t want = std::min<uintptr_t>(1 + next % 5, kItems + 1 - next);
            for (size_t i = 0; i < want; ++i) batch[i] = next + i;
            next += ring.push(batch, want);
        }
    });
    uintptr_t expected = 1, out[32];
    bool in_order = true;
    while (expected <= kItems) { // drains even after a mismatch, so the producer never blocks
        size_t got = ring.pop(out, 1 + expected % 32);
        for (size_t i = 0; i < got; ++i) in_order = in_order && out[i] == expected++;
    }
    producer.join();
    EXPECT_TRUE(in_order) << "item " << expected - 1 << " came out of order";
    EXPECT_EQ(expected, kItems + 1);
    EXPECT_FALSE(ring.readable());
}
