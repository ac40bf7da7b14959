// The command layer on an asynchronous backend, as the backend queue tests (aio, rbd) drive it:
// a UnitTarget whose namespace is `dev`, an admin queue, and one connected I/O queue attached to a
// TestLoop, so commands complete from the loop as they would from a poll group.
#pragma once

#include "command_harness.hpp"
#include "test_loop.hpp"

#include <memory>

namespace skiff::test {

struct LoopedQueue {
    TestLoop loop;
    std::unique_ptr<UnitTarget> t;
    std::unique_ptr<TestQueue> admin, io;

    // From SetUp: a failed assertion here ends SetUp's test before its body.
    void open_queue(std::shared_ptr<tgt::BlockDevice> dev, uint32_t block_size = 512) {
        t = std::make_unique<UnitTarget>(std::move(dev), block_size);
        admin = std::make_unique<TestQueue>(t->target, t->port);
        io = std::make_unique<TestQueue>(t->target, t->port);
        io->queue.attach(loop);
        uint16_t cntlid = t->bring_up(*admin);
        ASSERT_EQ(t->connect_io(*io, cntlid).status, 0);
    }
    // From TearDown: the loop's I/O finishes before the queues and the target go, in that order.
    void close_queue() {
        loop.drain();
        io.reset();
        admin.reset();
        loop.close_channels();
        t.reset();
    }
    // Runs the loop (and retries deferred commands) until req completed; at most 30 s.
    void wait(const tgt::Request &req) {
        for (int i = 0; i < 3000 && !io->is_done(req); ++i) {
            loop.run_once(10);
            io->queue.run_deferred();
        }
        ASSERT_TRUE(io->is_done(req)) << "command never completed";
    }
};

} // namespace skiff::test
