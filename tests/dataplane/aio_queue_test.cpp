// The command layer on an asynchronous backend: a queue attached to a poll-group-like loop
// (TestLoop) whose namespace lives in a file behind the aio backend. Commands complete from
// the loop, and a fused Compare and Write keeps the namespace's I/O gate from its compare
// until its write has completed, so other I/O cannot slip in between.
#include "../nvmeof/looped_queue.hpp"
#include "skiff/dataplane/aio_device.hpp"

#include <filesystem>

namespace skiff::test {
namespace {

class AioQueue : public ::testing::Test, protected LoopedQueue {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-aio-queue-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
        // Buffered: the harness's request buffers are ordinary heap memory (not O_DIRECT aligned).
        auto dev = dataplane::AioDevice::open(
            {.path = dir + "/ns.img", .buffered = true, .size_bytes = 8 << 20, .create = true});
        ASSERT_TRUE(dev.ok()) << dev.error().message;
        open_queue(*dev);
    }
    void TearDown() override {
        close_queue();
        std::filesystem::remove_all(dir);
    }
    std::vector<uint8_t> read(uint64_t lba) {
        auto &r = io->submit(io_sqe(nvme_cmd_read, lba, 1), 512);
        wait(r);
        EXPECT_EQ(r.cqe.status, 0);
        return std::vector<uint8_t>(r.buf, r.buf + 512);
    }

    std::string dir;
};

TEST_F(AioQueue, CommandsCompleteFromTheLoopNotInsideExecute) {
    std::vector<uint8_t> data(4096, 0x5C);
    auto &wr = io->submit(io_sqe(nvme_cmd_write, 16, 8), 4096, data.data());
    EXPECT_FALSE(io->is_done(wr)); // in the kernel's hands until the loop reaps it
    EXPECT_EQ(io->queue.io_in_flight(), 1u);
    wait(wr);
    EXPECT_EQ(wr.cqe.status, 0);
    EXPECT_EQ(io->queue.io_in_flight(), 0u);
    auto &fl = io->submit(io_sqe(nvme_cmd_flush, 0, 1));
    wait(fl);
    EXPECT_EQ(fl.cqe.status, 0);
    EXPECT_EQ(read(17), std::vector<uint8_t>(512, 0x5C));
}

TEST_F(AioQueue, FusedCompareAndWriteHoldsTheGateUntilItsWriteCompletes) {
    std::vector<uint8_t> old_data(512, 0x11), new_data(512, 0x22), later(512, 0x33);
    auto &w0 = io->submit(io_sqe(nvme_cmd_write, 7, 1), 512, old_data.data());
    wait(w0);

    w::Sqe cmp = io_sqe(nvme_cmd_compare, 7, 1), wr = io_sqe(nvme_cmd_write, 7, 1);
    cmp.flags = 1;
    wr.flags = 2;
    auto &c = io->submit(cmp, 512, old_data.data());
    auto &w = io->submit(wr, 512, new_data.data());
    EXPECT_FALSE(io->is_done(c) || io->is_done(w)); // the compare's read is in flight
    EXPECT_TRUE(t->ns->gate().held_by(&c));
    // Ordinary I/O on the namespace waits for the pair.
    auto &plain = io->submit(io_sqe(nvme_cmd_write, 7, 1), 512, later.data());
    EXPECT_FALSE(io->is_done(plain));
    EXPECT_TRUE(io->queue.has_deferred());
    wait(w);
    EXPECT_TRUE(io->is_done(c));
    EXPECT_EQ(c.cqe.status, 0);
    EXPECT_EQ(w.cqe.status, 0);
    EXPECT_FALSE(t->ns->gate().held_by(&c));
    wait(plain);
    EXPECT_EQ(plain.cqe.status, 0);
    EXPECT_EQ(read(7), later); // it ran after the pair

    // Mismatch: compare failure, the write is aborted, the data stays.
    auto &c2 = io->submit(cmp, 512, old_data.data());
    auto &w2 = io->submit(wr, 512, new_data.data());
    wait(w2);
    EXPECT_EQ(sc(c2.cqe), NVME_SC_COMPARE_FAILED);
    EXPECT_EQ(sc(w2.cqe), NVME_SC_FUSED_FAIL);
    EXPECT_EQ(read(7), later);
}

TEST_F(AioQueue, DatasetManagementDeallocatesEveryRangeAsynchronously) {
    std::vector<uint8_t> data(4096, 0x77);
    for (uint64_t lba : {0u, 100u, 200u}) {
        auto &r = io->submit(io_sqe(nvme_cmd_write, lba, 8), 4096, data.data());
        wait(r);
    }
    nvme_dsm_range ranges[2] = {{0, 8, 0}, {0, 8, 200}};
    w::Sqe dsm = io_sqe(nvme_cmd_dsm, 0, 1);
    dsm.cdw10 = 1;      // two ranges
    dsm.cdw11 = 1 << 2; // deallocate
    dsm.cdw12 = 0;
    auto &d = io->submit(dsm, sizeof(ranges), ranges);
    wait(d);
    EXPECT_EQ(d.cqe.status, 0);
    EXPECT_EQ(read(3), std::vector<uint8_t>(512, 0));
    EXPECT_EQ(read(103), std::vector<uint8_t>(512, 0x77));
    EXPECT_EQ(read(203), std::vector<uint8_t>(512, 0));
}

} // namespace
} // namespace skiff::test
