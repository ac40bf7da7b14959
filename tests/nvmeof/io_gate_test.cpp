// The namespace I/O gate that makes fused Compare and Write atomic across poll groups.
#include "command_harness.hpp"
#include "skiff/nvmeof/target/io_gate.hpp"

#include <atomic>
#include <thread>

namespace skiff::test {
namespace {

using tgt::IoGate;

TEST(IoGate, ExclusiveWaitsForOtherLanesAndShutsThemOutUntilReleased) {
    IoGate gate;
    IoGate::set_thread_lane(1);
    ASSERT_TRUE(gate.enter()); // lane 1 has an I/O in flight

    std::atomic<bool> claimed{false}, release{false};
    std::atomic<int> entered_while_held{-1};
    std::thread other([&] {
        IoGate::set_thread_lane(2);
        ASSERT_TRUE(gate.enter_exclusive()); // returns only once lane 1 has left
        claimed = true;
        while (!release) std::this_thread::yield();
        gate.leave_exclusive();
    });
    // Lane 2 cannot have claimed the gate while lane 1 is inside.
    for (int i = 0; i < 1000; ++i) std::this_thread::yield();
    EXPECT_FALSE(claimed.load());
    gate.leave();
    while (!claimed) std::this_thread::yield();

    // Held: ordinary I/O backs off, and a second Compare and Write cannot claim it.
    entered_while_held = gate.enter() ? 1 : 0;
    EXPECT_EQ(entered_while_held.load(), 0);
    EXPECT_FALSE(gate.enter_exclusive());
    release = true;
    other.join();
    EXPECT_TRUE(gate.enter());
    gate.leave();
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
        ASSERT_TRUE(t.ns->gate().enter_exclusive());
        held = true;
        while (!release) std::this_thread::yield();
        t.ns->gate().leave_exclusive();
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
        ASSERT_TRUE(t.ns->gate().enter_exclusive());
        held = true;
        while (!release) std::this_thread::yield();
        t.ns->gate().leave_exclusive();
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
