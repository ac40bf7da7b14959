// NVM I/O commands through the command layer: statuses, DSM, Write Zeroes, Compare and fused
// Compare-and-Write semantics.
#include "command_harness.hpp"

namespace skiff::test {
namespace {

class Io : public ::testing::Test {
  protected:
    void SetUp() override {
        uint16_t cntlid = t.bring_up(admin);
        ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    }
    std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
        std::vector<uint8_t> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
        return v;
    }
    w::Cqe write(uint64_t slba, const std::vector<uint8_t> &data) {
        return io.run(io_sqe(nvme_cmd_write, slba, static_cast<uint32_t>(data.size() / 512)),
                      static_cast<uint32_t>(data.size()), data.data());
    }
    std::vector<uint8_t> read(uint64_t slba, uint32_t nlb) {
        auto cqe = io.run(io_sqe(nvme_cmd_read, slba, nlb), nlb * 512);
        EXPECT_EQ(cqe.status, 0);
        return {io.data(), io.data() + nlb * 512};
    }

    UnitTarget t;
    TestQueue admin{t.target, t.port}, io{t.target, t.port};
    const uint64_t kBlocks = (8ull << 20) / 512;
};

TEST_F(Io, WriteReadRoundTripAndCompletionIdentity) {
    auto data = pattern(4096, 3);
    w::Sqe s = io_sqe(nvme_cmd_write, 100, 8);
    s.cid = 0xBEEF;
    auto cqe = io.run(s, 4096, data.data());
    EXPECT_EQ(cqe.status, 0);
    EXPECT_EQ(cqe.cid, 0xBEEF);
    EXPECT_EQ(cqe.sq_id, 1);
    EXPECT_EQ(read(100, 8), data);
}

TEST_F(Io, LbaOutOfRangeInvalidNamespaceInvalidOpcodeBadLength) {
    auto beyond = io.run(io_sqe(nvme_cmd_read, kBlocks - 1, 2), 1024);
    EXPECT_EQ(sct(beyond), NVME_SCT_GENERIC);
    EXPECT_EQ(sc(beyond), NVME_SC_LBA_RANGE);
    EXPECT_TRUE(dnr(beyond));
    EXPECT_EQ(sc(io.run(io_sqe(nvme_cmd_write_zeroes, kBlocks, 1))), NVME_SC_LBA_RANGE);
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_read, kBlocks - 1, 1), 512).status, 0); // the last block is fine

    auto badns = io.run(io_sqe(nvme_cmd_read, 0, 1, 3), 512);
    EXPECT_EQ(sc(badns), NVME_SC_INVALID_NS);
    EXPECT_TRUE(dnr(badns));
    EXPECT_EQ(sc(io.run(io_sqe(nvme_cmd_read, 0, 1, 0), 512)), NVME_SC_INVALID_NS);

    auto badop = io.run(io_sqe(0x7E, 0, 1));
    EXPECT_EQ(sc(badop), NVME_SC_INVALID_OPCODE);
    EXPECT_TRUE(dnr(badop));

    // The SGL must describe exactly NLB blocks.
    auto badlen = io.run(io_sqe(nvme_cmd_read, 0, 8), 512);
    EXPECT_EQ(sc(badlen), NVME_SC_SGL_INVALID_DATA);
    EXPECT_TRUE(dnr(badlen));
}

TEST_F(Io, WriteZeroesAndDeallocateReadBackAsZeroes) {
    ASSERT_EQ(write(0, pattern(64 * 512, 9)).status, 0);
    // Write Zeroes blocks 2..5; with DEAC blocks 20..39 (crossing a page boundary).
    ASSERT_EQ(io.run(io_sqe(nvme_cmd_write_zeroes, 2, 4)).status, 0);
    w::Sqe deac = io_sqe(nvme_cmd_write_zeroes, 20, 20);
    deac.cdw12 |= 1u << 25;
    ASSERT_EQ(io.run(deac).status, 0);
    auto got = read(0, 64);
    auto want = pattern(64 * 512, 9);
    std::fill(want.begin() + 2 * 512, want.begin() + 6 * 512, 0);
    std::fill(want.begin() + 20 * 512, want.begin() + 40 * 512, 0);
    EXPECT_EQ(got, want);
}

TEST_F(Io, DatasetManagementDeallocatesRangesAndRejectsBadOnesWhole) {
    ASSERT_EQ(write(0, pattern(32 * 512, 1)).status, 0);
    nvme_dsm_range r[2] = {};
    r[0].slba = 0;
    r[0].nlb = 8; // a whole page
    r[1].slba = 10;
    r[1].nlb = 1;
    w::Sqe dsm = io_sqe(nvme_cmd_dsm, 0, 1);
    dsm.cdw10 = 1;       // two ranges (0's based)
    dsm.cdw11 = 1u << 2; // AD: deallocate
    dsm.cdw12 = 0;
    ASSERT_EQ(io.run(dsm, sizeof(r), r).status, 0);
    auto want = pattern(32 * 512, 1);
    std::fill(want.begin(), want.begin() + 8 * 512, 0);
    std::fill(want.begin() + 10 * 512, want.begin() + 11 * 512, 0);
    EXPECT_EQ(read(0, 32), want);

    // One range beyond the end: LBA out of range, and the good range is left alone.
    ASSERT_EQ(write(0, pattern(32 * 512, 1)).status, 0);
    r[1].slba = kBlocks;
    auto bad = io.run(dsm, sizeof(r), r);
    EXPECT_EQ(sc(bad), NVME_SC_LBA_RANGE);
    EXPECT_EQ(read(0, 32), pattern(32 * 512, 1));
}

TEST_F(Io, CompareMatchesOrFailsWithCompareFailure) {
    auto data = pattern(1024, 5);
    ASSERT_EQ(write(40, data).status, 0);
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_compare, 40, 2), 1024, data.data()).status, 0);
    data[1000] ^= 1;
    auto miss = io.run(io_sqe(nvme_cmd_compare, 40, 2), 1024, data.data());
    EXPECT_EQ(sct(miss), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(miss), NVME_SC_COMPARE_FAILED);
}

TEST_F(Io, FusedCompareAndWriteSwapsOnlyWhenTheCompareMatches) {
    auto old_data = pattern(512, 11), new_data = pattern(512, 99);
    ASSERT_EQ(write(7, old_data).status, 0);
    w::Sqe cmp = io_sqe(nvme_cmd_compare, 7, 1), wr = io_sqe(nvme_cmd_write, 7, 1);
    cmp.flags = 1; // first fused command
    wr.flags = 2;  // second

    // Match: both succeed and the new data is in place.
    auto &c1 = io.submit(cmp, 512, old_data.data());
    EXPECT_FALSE(io.is_done(c1)); // waits for its partner
    auto &w1 = io.submit(wr, 512, new_data.data());
    ASSERT_TRUE(io.is_done(c1) && io.is_done(w1));
    EXPECT_EQ(c1.cqe.status, 0);
    EXPECT_EQ(w1.cqe.status, 0);
    EXPECT_EQ(read(7, 1), new_data);

    // Mismatch: compare failure, the write is aborted, the data is unchanged.
    auto &c2 = io.submit(cmp, 512, old_data.data());
    auto &w2 = io.submit(wr, 512, pattern(512, 42).data());
    EXPECT_EQ(sc(c2.cqe), NVME_SC_COMPARE_FAILED);
    EXPECT_EQ(sct(c2.cqe), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(w2.cqe), NVME_SC_FUSED_FAIL);
    EXPECT_EQ(read(7, 1), new_data);
}

TEST_F(Io, FusedHalvesWithoutPartnersAreAborted) {
    // A second half with no first.
    w::Sqe wr = io_sqe(nvme_cmd_write, 7, 1);
    wr.flags = 2;
    auto data = pattern(512, 1);
    EXPECT_EQ(sc(io.run(wr, 512, data.data())), NVME_SC_FUSED_MISSING);
    // A first half followed by an ordinary command: the first is aborted, the other runs.
    w::Sqe cmp = io_sqe(nvme_cmd_compare, 7, 1);
    cmp.flags = 1;
    auto &c = io.submit(cmp, 512, data.data());
    auto &other = io.submit(io_sqe(nvme_cmd_read, 0, 1), 512);
    ASSERT_TRUE(io.is_done(other));
    EXPECT_EQ(other.cqe.status, 0);
    ASSERT_TRUE(io.is_done(c));
    EXPECT_EQ(sc(c.cqe), NVME_SC_FUSED_MISSING);
    // A fused first half that is not a Compare is invalid.
    w::Sqe bad = io_sqe(nvme_cmd_read, 0, 1);
    bad.flags = 1;
    EXPECT_EQ(sc(io.run(bad, 512)), NVME_SC_INVALID_FIELD);
}

} // namespace
} // namespace skiff::test
