// Fused Compare and Write on a device that makes the pair atomic itself (rbd: one
// rbd_aio_compare_and_write): the command layer hands it over as one IoOp::kCompareAndWrite with
// both buffers, without taking the namespace's gate, and maps the one result onto both halves.
// Ranges the device does not take still go the gated compare-then-write way. The device here
// keeps its bytes in memory and records what it was asked to do; the rbd device's own handling
// of the operation is tested against the dev cluster (tests/dataplane/rbd_device_test.cpp).
#include "command_harness.hpp"

#include <utility>

namespace skiff::test {
namespace {

// Memory with an inline channel that implements kCompareAndWrite; atomic for one-block
// (512-byte) ranges only, like librbd 16.
class AtomicCawDevice final : public tgt::BlockDevice {
  public:
    explicit AtomicCawDevice(uint64_t size) : bytes(size) {}
    const char *kind() const override { return "atomic-caw-test"; }
    uint64_t size_bytes() const override { return bytes.size(); }
    tgt::DeallocateMode deallocate_mode() const override { return tgt::DeallocateMode::kUnsupported; }
    bool atomic_compare_and_write(uint64_t offset, uint64_t len) const override {
        return len > 0 && offset % 512 + len <= 512;
    }
    Result<std::unique_ptr<tgt::IoChannel>> open_channel(tgt::PollContext &,
                                                         const tgt::ChannelParams &) override {
        return std::unique_ptr<tgt::IoChannel>(std::make_unique<Channel>(*this));
    }

    // Completes the I/O held so far, in order (each runs when it completes, as on a device
    // whose I/O is in flight for a while); returns how many.
    size_t complete_held() {
        std::vector<tgt::BackendIo *> now;
        now.swap(held);
        for (tgt::BackendIo *io : now) io->done(*io, run(*io));
        return now.size();
    }

    std::vector<uint8_t> bytes;
    std::vector<tgt::IoOp> ops; // every operation submitted, in order
    uint16_t fail_next_caw = 0; // a status the next kCompareAndWrite fails with (0: none)
    bool hold = false;          // keep submitted I/O in flight until complete_held()
    std::vector<tgt::BackendIo *> held;

  private:
    struct Channel final : tgt::IoChannel {
        explicit Channel(AtomicCawDevice &d) : dev(d) {}
        void submit(tgt::BackendIo &io) override {
            dev.ops.push_back(io.op);
            if (dev.hold) return dev.held.push_back(&io);
            io.done(io, dev.run(io));
        }
        uint32_t in_flight() const override { return static_cast<uint32_t>(dev.held.size()); }
        AtomicCawDevice &dev;
    };
    uint16_t run(const tgt::BackendIo &io) {
        uint8_t *at = bytes.data() + io.offset;
        const uint16_t miscompare = w::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
        switch (io.op) {
        case tgt::IoOp::kRead:
            std::memcpy(io.buf, at, io.len);
            return 0;
        case tgt::IoOp::kWrite:
            std::memcpy(at, io.buf, io.len);
            return 0;
        case tgt::IoOp::kCompare:
            return std::memcmp(at, io.buf, io.len) == 0 ? 0 : miscompare;
        case tgt::IoOp::kCompareAndWrite:
            if (uint16_t st = std::exchange(fail_next_caw, 0)) return st;
            if (std::memcmp(at, io.buf, io.len) != 0) return miscompare;
            std::memcpy(at, io.write_buf, io.len);
            return 0;
        default:
            return 0;
        }
    }
};

class AtomicCompareAndWrite : public ::testing::Test {
  protected:
    void SetUp() override {
        uint16_t cntlid = t.bring_up(admin);
        ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    }
    static std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
        std::vector<uint8_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
        return v;
    }
    std::vector<uint8_t> stored(uint64_t slba, uint32_t nlb) {
        auto *p = dev->bytes.data() + slba * 512;
        return {p, p + nlb * 512};
    }
    // Submits a fused pair (the write half at wr_slba); returns both halves, done or not.
    std::pair<tgt::Request *, tgt::Request *> submit_pair(uint64_t slba, uint32_t nlb,
                                                          const std::vector<uint8_t> &expect,
                                                          const std::vector<uint8_t> &write,
                                                          uint64_t wr_slba = ~0ull) {
        w::Sqe cmp = io_sqe(nvme_cmd_compare, slba, nlb);
        w::Sqe wr = io_sqe(nvme_cmd_write, wr_slba == ~0ull ? slba : wr_slba, nlb);
        cmp.flags = 1;
        wr.flags = 2;
        auto &c = io.submit(cmp, nlb * 512, expect.data());
        auto &x = io.submit(wr, nlb * 512, write.data());
        return {&c, &x};
    }
    // Submits the fused pair; both halves must be complete afterwards (the device is inline).
    std::pair<w::Cqe, w::Cqe> caw(uint64_t slba, uint32_t nlb, const std::vector<uint8_t> &expect,
                                  const std::vector<uint8_t> &write, uint64_t wr_slba = ~0ull) {
        auto [c, x] = submit_pair(slba, nlb, expect, write, wr_slba);
        EXPECT_TRUE(io.is_done(*c) && io.is_done(*x));
        return {c->cqe, x->cqe};
    }
    static std::vector<uint8_t> concat(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
        std::vector<uint8_t> v = a;
        v.insert(v.end(), b.begin(), b.end());
        return v;
    }

    std::shared_ptr<AtomicCawDevice> dev = std::make_shared<AtomicCawDevice>(1 << 20);
    UnitTarget t{dev};
    TestQueue admin{t.target, t.port}, io{t.target, t.port};
};

TEST_F(AtomicCompareAndWrite, AOneBlockPairIsOneDeviceOperationWithBothBuffers) {
    auto old_data = pattern(512, 3), new_data = pattern(512, 77);
    std::memcpy(dev->bytes.data() + 9 * 512, old_data.data(), 512);
    auto [c, x] = caw(9, 1, old_data, new_data);
    EXPECT_EQ(c.status, 0);
    EXPECT_EQ(x.status, 0);
    EXPECT_EQ(stored(9, 1), new_data);
    EXPECT_EQ(dev->ops, std::vector<tgt::IoOp>{tgt::IoOp::kCompareAndWrite})
        << "no separate compare or write";
}

TEST_F(AtomicCompareAndWrite, AMiscompareFailsTheCompareAndAbortsTheWrite) {
    auto old_data = pattern(512, 3);
    std::memcpy(dev->bytes.data() + 9 * 512, old_data.data(), 512);
    auto [c, x] = caw(9, 1, pattern(512, 4), pattern(512, 77));
    EXPECT_EQ(sct(c), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(c), NVME_SC_COMPARE_FAILED);
    EXPECT_EQ(sc(x), NVME_SC_FUSED_FAIL);
    EXPECT_EQ(stored(9, 1), old_data);
}

// A path error (the cluster is gone) reaches the host on the compare half, retryable.
TEST_F(AtomicCompareAndWrite, ADeviceFailureIsTheCompareHalfsStatus) {
    dev->fail_next_caw = w::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
    auto [c, x] = caw(9, 1, pattern(512, 3), pattern(512, 77));
    EXPECT_EQ(sct(c), NVME_SCT_PATH);
    EXPECT_EQ(sc(c), NVME_SC_ANA_INACCESSIBLE);
    EXPECT_FALSE(dnr(c));
    EXPECT_EQ(sc(x), NVME_SC_FUSED_FAIL);
}

// Two blocks are more than the device takes at once: compare, then write, under the gate.
TEST_F(AtomicCompareAndWrite, ALargerPairFallsBackToCompareThenWrite) {
    auto old_data = pattern(1024, 5), new_data = pattern(1024, 55);
    std::memcpy(dev->bytes.data() + 20 * 512, old_data.data(), 1024);
    auto [c, x] = caw(20, 2, old_data, new_data);
    EXPECT_EQ(c.status, 0);
    EXPECT_EQ(x.status, 0);
    EXPECT_EQ(stored(20, 2), new_data);
    EXPECT_EQ(dev->ops, (std::vector<tgt::IoOp>{tgt::IoOp::kCompare, tgt::IoOp::kWrite}));
}

// The atomic pair passes the namespace's gate shared, like any I/O: it cannot land between the
// compare and the write of a gated (larger) pair over the same blocks...
TEST_F(AtomicCompareAndWrite, AnAtomicPairWaitsWhileAGatedPairHoldsTheGate) {
    using tgt::IoOp;
    auto old_data = pattern(1024, 5), new_data = pattern(1024, 55), last = pattern(512, 9);
    std::memcpy(dev->bytes.data() + 20 * 512, old_data.data(), 1024);
    dev->hold = true;
    auto [gc, gw] = submit_pair(20, 2, old_data, new_data);
    ASSERT_EQ(dev->ops, std::vector<IoOp>{IoOp::kCompare});
    EXPECT_TRUE(t.ns->gate().held_by(gc));
    // One block inside the gated pair's range, expecting what the gated pair writes there.
    std::vector<uint8_t> new_first(new_data.begin(), new_data.begin() + 512);
    auto [ac, aw] = submit_pair(20, 1, new_first, last);
    EXPECT_EQ(dev->ops, std::vector<IoOp>{IoOp::kCompare})
        << "the one-block pair ran between the gated pair's compare and write";
    EXPECT_TRUE(io.queue.has_deferred());
    EXPECT_EQ(dev->complete_held(), 1u); // the compare matched: the gated write starts
    io.queue.run_deferred();
    EXPECT_EQ(dev->ops, (std::vector<IoOp>{IoOp::kCompare, IoOp::kWrite}));
    EXPECT_EQ(dev->complete_held(), 1u);
    ASSERT_TRUE(io.is_done(*gc) && io.is_done(*gw));
    EXPECT_EQ(gc->cqe.status, 0);
    EXPECT_EQ(gw->cqe.status, 0);
    EXPECT_FALSE(io.is_done(*ac));
    io.queue.run_deferred();
    EXPECT_EQ(dev->ops, (std::vector<IoOp>{IoOp::kCompare, IoOp::kWrite, IoOp::kCompareAndWrite}));
    EXPECT_EQ(dev->complete_held(), 1u);
    ASSERT_TRUE(io.is_done(*ac) && io.is_done(*aw));
    EXPECT_EQ(ac->cqe.status, 0) << "it compared against the gated pair's data";
    EXPECT_EQ(aw->cqe.status, 0);
    EXPECT_EQ(stored(20, 2), concat(last, std::vector<uint8_t>(new_data.begin() + 512, new_data.end())));
}

// ...and a gated pair waits until an atomic pair in flight has completed.
TEST_F(AtomicCompareAndWrite, AGatedPairWaitsForAnAtomicPairInFlight) {
    using tgt::IoOp;
    auto first = pattern(512, 3), second = pattern(512, 4), next = pattern(512, 6), other = pattern(512, 8);
    std::memcpy(dev->bytes.data() + 20 * 512, first.data(), 512);
    std::memcpy(dev->bytes.data() + 21 * 512, other.data(), 512);
    dev->hold = true;
    auto [ac, aw] = submit_pair(20, 1, first, second);
    ASSERT_EQ(dev->ops, std::vector<IoOp>{IoOp::kCompareAndWrite});
    EXPECT_FALSE(t.ns->gate().held_by(ac)) << "an atomic pair takes no exclusive gate";
    auto [gc, gw] = submit_pair(20, 2, concat(second, other), concat(next, other));
    EXPECT_EQ(dev->ops.size(), 1u) << "the gated pair started while the atomic pair was in flight";
    EXPECT_EQ(dev->complete_held(), 1u);
    ASSERT_TRUE(io.is_done(*ac) && io.is_done(*aw));
    EXPECT_EQ(ac->cqe.status, 0);
    io.queue.run_deferred();
    EXPECT_EQ(dev->ops, (std::vector<IoOp>{IoOp::kCompareAndWrite, IoOp::kCompare}));
    EXPECT_EQ(dev->complete_held(), 1u); // compare
    EXPECT_EQ(dev->complete_held(), 1u); // write
    ASSERT_TRUE(io.is_done(*gc) && io.is_done(*gw));
    EXPECT_EQ(gc->cqe.status, 0) << "it compared against the atomic pair's write";
    EXPECT_EQ(stored(20, 2), concat(next, other));
}

// What the command layer refuses never reaches the device, atomic or not.
TEST_F(AtomicCompareAndWrite, RangeAndPairingErrorsNeverReachTheDevice) {
    const uint64_t blocks = dev->bytes.size() / 512;
    auto data = pattern(512, 1);
    // Past the end: the compare half is LBA Out of Range; it was never recorded as a first half,
    // so the write half finds none.
    auto [c1, x1] = caw(blocks, 1, data, data);
    EXPECT_EQ(sct(c1), NVME_SCT_GENERIC);
    EXPECT_EQ(sc(c1), NVME_SC_LBA_RANGE);
    EXPECT_EQ(sc(x1), NVME_SC_FUSED_MISSING);
    // Halves over different blocks: the write half is invalid and the compare half fails with it.
    auto [c2, x2] = caw(9, 1, data, data, 10);
    EXPECT_EQ(sc(x2), NVME_SC_INVALID_FIELD);
    EXPECT_EQ(sc(c2), NVME_SC_FUSED_FAIL);
    // A write half alone.
    w::Sqe wr = io_sqe(nvme_cmd_write, 9, 1);
    wr.flags = 2;
    EXPECT_EQ(sc(io.run(wr, 512, data.data())), NVME_SC_FUSED_MISSING);
    EXPECT_TRUE(dev->ops.empty());
}

// A write half refused before it could be paired (here: a namespace that does not exist) takes
// its compare half with it; the compare half is answered, not left waiting for a partner (found
// by the tcp_association fuzz harness: the compare half never completed).
TEST_F(AtomicCompareAndWrite, ASecondHalfForAnUnknownNamespaceFailsTheFirstHalfToo) {
    auto data = pattern(512, 3);
    for (uint32_t nsid : {0u, 7u, 0xFFFFFFFFu}) {
        SCOPED_TRACE("write half nsid " + std::to_string(nsid));
        w::Sqe cmp = io_sqe(nvme_cmd_compare, 9, 1);
        w::Sqe wr = io_sqe(nvme_cmd_write, 9, 1);
        cmp.flags = 1;
        wr.flags = 2;
        wr.nsid = nsid;
        auto &c = io.submit(cmp, 512, data.data());
        auto &x = io.submit(wr, 512, data.data());
        ASSERT_TRUE(io.is_done(x));
        EXPECT_NE(x.cqe.status, 0);
        ASSERT_TRUE(io.is_done(c)) << "the compare half was never answered";
        EXPECT_EQ(sc(c.cqe), NVME_SC_FUSED_FAIL);
    }
    EXPECT_TRUE(dev->ops.empty());
}

} // namespace
} // namespace skiff::test
