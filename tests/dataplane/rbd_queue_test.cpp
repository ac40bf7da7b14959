// The command layer on the rbd backend (needs the dev cluster: scripts/ceph-dev-cluster.sh
// start; SKIFF_CEPH_CONF=its ceph.conf; skipped without). A fused Compare and Write that librbd
// takes (one 512-byte sector) goes to librbd as one rbd_aio_compare_and_write, holding the
// namespace's gate only shared, so ordinary I/O keeps flowing; a larger one is compared, then
// written, holding the gate exclusively.
#include "../nvmeof/looped_queue.hpp"
#include "rbd_scratch_image.hpp"
#include "skiff/dataplane/rbd_device.hpp"

#include <cstdlib>

namespace skiff::test {
namespace {

class RbdQueue : public ::testing::Test, protected LoopedQueue {
  protected:
    void SetUp() override {
        const char *conf = std::getenv("SKIFF_CEPH_CONF");
        if (!conf || !*conf)
            GTEST_SKIP() << "no dev cluster (scripts/ceph-dev-cluster.sh start; SKIFF_CEPH_CONF)";
        dataplane::RbdOptions o;
        const char *pool = std::getenv("SKIFF_CEPH_POOL");
        o.pool = pool && *pool ? pool : "rbd";
        o.conf_path = conf;
        image = std::make_unique<ScratchImage>(o.conf_path, o.pool, "skiff-queue-" + std::to_string(getpid()),
                                               32 << 20);
        ASSERT_TRUE(image->ok()) << "cannot create a scratch image in the dev cluster";
        o.image = image->name();
        o.queue_depth = 8;
        auto dev = dataplane::RbdDevice::open(o);
        ASSERT_TRUE(dev.ok()) << dev.error().message;
        open_queue(*dev, 512);
    }
    void TearDown() override {
        close_queue();
        image.reset();
    }
    uint16_t write(uint64_t lba, const std::vector<uint8_t> &data) {
        auto &r = io->submit(io_sqe(nvme_cmd_write, lba, static_cast<uint32_t>(data.size() / 512)),
                             static_cast<uint32_t>(data.size()), data.data());
        wait(r);
        return r.cqe.status;
    }
    std::vector<uint8_t> read(uint64_t lba, uint32_t nlb) {
        auto &r = io->submit(io_sqe(nvme_cmd_read, lba, nlb), nlb * 512);
        wait(r);
        EXPECT_EQ(r.cqe.status, 0);
        return std::vector<uint8_t>(r.buf, r.buf + nlb * 512);
    }
    std::pair<tgt::Request *, tgt::Request *> pair(uint64_t lba, const std::vector<uint8_t> &expect,
                                                   const std::vector<uint8_t> &data) {
        const auto nlb = static_cast<uint32_t>(data.size() / 512);
        w::Sqe cmp = io_sqe(nvme_cmd_compare, lba, nlb), wr = io_sqe(nvme_cmd_write, lba, nlb);
        cmp.flags = 1;
        wr.flags = 2;
        auto &c = io->submit(cmp, nlb * 512, expect.data());
        auto &x = io->submit(wr, nlb * 512, data.data());
        return {&c, &x};
    }
    static std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
        std::vector<uint8_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 13);
        return v;
    }

    std::unique_ptr<ScratchImage> image;
    const uint64_t kLba = (20ull << 20) / 512;
};

TEST_F(RbdQueue, AOneSectorPairIsOneLibrbdCompareAndWriteAndOtherIoKeepsFlowing) {
    auto old_data = pattern(512, 1), new_data = pattern(512, 2), other = pattern(512, 3);
    ASSERT_EQ(write(kLba, old_data), 0);
    auto [c, x] = pair(kLba, old_data, new_data);
    EXPECT_FALSE(io->is_done(*c) || io->is_done(*x)) << "librbd completes through the loop";
    EXPECT_FALSE(t->ns->gate().held_by(c)) << "the atomic pair took the gate exclusively";
    // Ordinary I/O on the namespace is not held back by it.
    auto &plain = io->submit(io_sqe(nvme_cmd_write, kLba + 8, 1), 512, other.data());
    EXPECT_FALSE(io->queue.has_deferred());
    wait(*x);
    wait(plain);
    EXPECT_EQ(c->cqe.status, 0);
    EXPECT_EQ(x->cqe.status, 0);
    EXPECT_EQ(plain.cqe.status, 0);
    EXPECT_EQ(read(kLba, 1), new_data);

    // A miscompare (librbd's -EILSEQ): Compare Failure, the write half aborted, nothing written.
    auto [c2, x2] = pair(kLba, old_data, pattern(512, 4));
    wait(*x2);
    ASSERT_TRUE(io->is_done(*c2));
    EXPECT_EQ(sct(c2->cqe), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(c2->cqe), NVME_SC_COMPARE_FAILED);
    EXPECT_EQ(sc(x2->cqe), NVME_SC_FUSED_FAIL);
    EXPECT_EQ(read(kLba, 1), new_data);
}

// librbd 16 refuses compare-and-write beyond one sector: two blocks go the gated way.
TEST_F(RbdQueue, ATwoSectorPairIsComparedThenWrittenUnderTheGate) {
    auto old_data = pattern(1024, 5), new_data = pattern(1024, 6), later = pattern(512, 7);
    ASSERT_EQ(write(kLba + 16, old_data), 0);
    auto [c, x] = pair(kLba + 16, old_data, new_data);
    EXPECT_TRUE(t->ns->gate().held_by(c));
    auto &plain = io->submit(io_sqe(nvme_cmd_write, kLba + 16, 1), 512, later.data());
    EXPECT_TRUE(io->queue.has_deferred()) << "ordinary I/O waits for the gated pair";
    wait(*x);
    EXPECT_EQ(c->cqe.status, 0);
    EXPECT_EQ(x->cqe.status, 0);
    wait(plain);
    EXPECT_EQ(plain.cqe.status, 0);
    auto expect = later;
    expect.insert(expect.end(), new_data.begin() + 512, new_data.end());
    EXPECT_EQ(read(kLba + 16, 2), expect) << "the plain write ran after the pair";
}

} // namespace
} // namespace skiff::test
