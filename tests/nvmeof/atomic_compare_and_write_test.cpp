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

    std::vector<uint8_t> bytes;
    std::vector<tgt::IoOp> ops; // every operation submitted, in order
    uint16_t fail_next_caw = 0; // a status the next kCompareAndWrite fails with (0: none)

  private:
    struct Channel final : tgt::IoChannel {
        explicit Channel(AtomicCawDevice &d) : dev(d) {}
        void submit(tgt::BackendIo &io) override { io.done(io, dev.run(io)); }
        uint32_t in_flight() const override { return 0; }
        AtomicCawDevice &dev;
    };
    uint16_t run(const tgt::BackendIo &io) {
        ops.push_back(io.op);
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
    // Submits the fused pair; both halves must be complete afterwards (the device is inline).
    std::pair<w::Cqe, w::Cqe> caw(uint64_t slba, uint32_t nlb, const std::vector<uint8_t> &expect,
                                  const std::vector<uint8_t> &write) {
        w::Sqe cmp = io_sqe(nvme_cmd_compare, slba, nlb), wr = io_sqe(nvme_cmd_write, slba, nlb);
        cmp.flags = 1;
        wr.flags = 2;
        auto &c = io.submit(cmp, nlb * 512, expect.data());
        auto &x = io.submit(wr, nlb * 512, write.data());
        EXPECT_TRUE(io.is_done(c) && io.is_done(x));
        return {c.cqe, x.cqe};
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

} // namespace
} // namespace skiff::test
