// The namespace I/O gate that makes fused Compare and Write atomic across poll groups.
#include "command_harness.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"

#include <atomic>
#include <thread>

namespace skiff::test {
namespace {

using tgt::IoGate;

TEST(IoGate, ExclusiveWaitsForEveryLanesIoAndShutsThemOutUntilReleased) {
    IoGate gate;
    int owner = 0, rival = 0;
    IoGate::set_thread_lane(1);
    ASSERT_TRUE(gate.enter()); // lane 1 has two I/Os in flight (an asynchronous backend)
    ASSERT_TRUE(gate.enter());

    // Each step is handed over explicitly (never by timing), so a descheduled thread cannot
    // miss one on a loaded machine.
    std::atomic<int> step{0};
    std::atomic<bool> ran_early{false};
    auto wait_for = [&](int s) {
        while (step != s) std::this_thread::yield();
    };
    std::thread other([&] {
        IoGate::set_thread_lane(2);
        EXPECT_TRUE(gate.enter()); // lane 2's own I/O in flight counts too
        // Claimed, but not drained: "not yet", and the claim is kept.
        if (gate.try_exclusive(&owner)) ran_early = true;
        EXPECT_TRUE(gate.held_by(&owner));
        step = 1;
        wait_for(2);
        if (gate.try_exclusive(&owner)) ran_early = true; // lane 1 and its own lane still busy
        gate.leave();
        step = 3;
        wait_for(4);
        EXPECT_TRUE(gate.try_exclusive(&owner)); // every lane drained
        step = 5;
        wait_for(6);
        gate.leave_exclusive(&owner);
        step = 7;
    });
    wait_for(1);
    // Claimed: new I/O backs off, a rival Compare and Write cannot claim it.
    EXPECT_FALSE(gate.enter());
    EXPECT_FALSE(gate.try_exclusive(&rival));
    gate.leave();
    step = 2; // lane 1 still has one I/O in flight until the owner has tried again
    wait_for(3);
    gate.leave();
    step = 4;
    wait_for(5);
    EXPECT_FALSE(ran_early.load());
    EXPECT_FALSE(gate.enter()); // held while it runs
    step = 6;
    wait_for(7);
    other.join();
    EXPECT_TRUE(gate.enter()); // released
    gate.leave();
    EXPECT_TRUE(gate.try_exclusive(&rival)); // and free for the next one
    gate.leave_exclusive(&rival);
    IoGate::set_thread_lane(0);
}

TEST(IoGate, IoIsDeferredWhileACompareAndWriteHoldsTheNamespaceThenRuns) {
    UnitTarget t;
    TestQueue admin(t.target, t.port), io(t.target, t.port);
    uint16_t cntlid = t.bring_up(admin);
    ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    IoGate::set_thread_lane(3);

    std::atomic<bool> held{false}, release{false};
    std::thread caw_elsewhere([&] {
        IoGate::set_thread_lane(4); // another poll group running a Compare and Write
        int token = 0;
        while (!t.ns->gate().try_exclusive(&token)) std::this_thread::yield();
        held = true;
        while (!release) std::this_thread::yield();
        t.ns->gate().leave_exclusive(&token);
    });
    while (!held) std::this_thread::yield();

    std::vector<uint8_t> data(512, 0x3C);
    auto &wr = io.submit(io_sqe(nvme_cmd_write, 5, 1), 512, data.data());
    auto &rd = io.submit(io_sqe(nvme_cmd_read, 5, 1), 512);
    EXPECT_FALSE(io.is_done(wr));
    EXPECT_FALSE(io.is_done(rd));
    EXPECT_TRUE(io.queue.has_deferred());
    io.queue.run_deferred(); // still held: they wait again
    EXPECT_FALSE(io.is_done(wr));

    release = true;
    caw_elsewhere.join();
    io.queue.run_deferred();
    ASSERT_TRUE(io.is_done(wr) && io.is_done(rd));
    EXPECT_EQ(wr.cqe.status, 0);
    EXPECT_EQ(rd.cqe.status, 0);
    EXPECT_FALSE(io.queue.has_deferred());
    // In order: the read ran after the write.
    EXPECT_EQ(std::vector<uint8_t>(rd.buf, rd.buf + 512), data);
    IoGate::set_thread_lane(0);
}

TEST(IoGate, CompareAndWriteWaitsForAnotherCompareAndWrite) {
    UnitTarget t;
    TestQueue admin(t.target, t.port), io(t.target, t.port);
    uint16_t cntlid = t.bring_up(admin);
    ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    IoGate::set_thread_lane(5);
    std::vector<uint8_t> zero(512, 0), one(512, 1);

    std::atomic<bool> held{false}, release{false};
    std::thread other([&] {
        IoGate::set_thread_lane(6);
        int token = 0;
        while (!t.ns->gate().try_exclusive(&token)) std::this_thread::yield();
        held = true;
        while (!release) std::this_thread::yield();
        t.ns->gate().leave_exclusive(&token);
    });
    while (!held) std::this_thread::yield();
    w::Sqe cmp = io_sqe(nvme_cmd_compare, 9, 1), wr = io_sqe(nvme_cmd_write, 9, 1);
    cmp.flags = 1;
    wr.flags = 2;
    auto &c = io.submit(cmp, 512, zero.data());
    auto &w = io.submit(wr, 512, one.data());
    EXPECT_FALSE(io.is_done(c) || io.is_done(w));
    release = true;
    other.join();
    io.queue.run_deferred();
    ASSERT_TRUE(io.is_done(c) && io.is_done(w));
    EXPECT_EQ(c.cqe.status, 0);
    EXPECT_EQ(w.cqe.status, 0);
    auto cqe = io.run(io_sqe(nvme_cmd_read, 9, 1), 512);
    EXPECT_EQ(cqe.status, 0);
    EXPECT_EQ(std::vector<uint8_t>(io.data(), io.data() + 512), one);
    IoGate::set_thread_lane(0);
}

} // namespace
} // namespace skiff::test
