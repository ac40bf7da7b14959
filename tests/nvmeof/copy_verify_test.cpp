// Copy and Verify through the command layer, against a RAM namespace (512-byte blocks, 8 MiB):
// data lands where the spec says, every check runs before a block moves, the limits Identify
// advertises are the ones enforced, and backend failures come back with the failing range.
#include "../support/pattern.hpp"
#include "command_harness.hpp"

#include "skiff/dataplane/error_device.hpp"

namespace skiff::test {
namespace {

constexpr uint32_t kBlock = 512;
constexpr uint16_t kOk = 0;
// What Identify advertises for 512-byte blocks (nvmeof/src/target/copy_limits.hpp): 8 MiB.
constexpr uint32_t kMcl = (8u << 20) / kBlock;
constexpr uint32_t kMaxRanges = 128;
constexpr uint32_t kChunk = 256; // blocks in the harness's 128 KiB buffer

nvme_copy_range range(uint64_t slba, uint32_t blocks) {
    nvme_copy_range r{};
    r.slba = slba;
    r.nlb = static_cast<uint16_t>(blocks - 1);
    return r;
}

w::Sqe copy_sqe(uint64_t sdlba, size_t ranges, uint8_t format = 0) {
    w::Sqe s = io_sqe(nvme_cmd_copy, sdlba, 1);
    s.cdw12 = static_cast<uint32_t>((ranges - 1) & 0xFF) | (uint32_t(format) << 8);
    return s;
}

class CopyVerify : public ::testing::Test {
  protected:
    void SetUp() override {
        uint16_t cntlid = t.bring_up(admin);
        ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    }
    // Write and Read in commands of at most the harness's 128 KiB buffer.
    w::Cqe write(uint64_t slba, const std::vector<uint8_t> &data) {
        w::Cqe cqe{};
        for (uint64_t done = 0; done < data.size() / kBlock && cqe.status == 0;) {
            const auto n = static_cast<uint32_t>(std::min<uint64_t>(data.size() / kBlock - done, kChunk));
            cqe = io.run(io_sqe(nvme_cmd_write, slba + done, n), n * kBlock, data.data() + done * kBlock);
            done += n;
        }
        return cqe;
    }
    std::vector<uint8_t> read(uint64_t slba, uint32_t nlb) {
        std::vector<uint8_t> out;
        for (uint32_t done = 0; done < nlb;) {
            const uint32_t n = std::min(nlb - done, kChunk);
            EXPECT_EQ(io.run(io_sqe(nvme_cmd_read, slba + done, n), n * kBlock).status, 0);
            out.insert(out.end(), io.data(), io.data() + size_t(n) * kBlock);
            done += n;
        }
        return out;
    }
    w::Cqe copy(uint64_t sdlba, const std::vector<nvme_copy_range> &ranges, uint8_t format = 0) {
        return io.run(copy_sqe(sdlba, ranges.size(), format),
                      static_cast<uint32_t>(ranges.size() * sizeof(nvme_copy_range)), ranges.data());
    }

    UnitTarget t;
    TestQueue admin{t.target, t.port}, io{t.target, t.port};
    const uint64_t kBlocks = (8ull << 20) / kBlock;
};

TEST_F(CopyVerify, CopyPutsEveryRangeAtConsecutiveDestinationBlocks) {
    const auto src = pattern(700 * kBlock, 1);
    ASSERT_EQ(write(0, src).status, kOk);
    const auto before = pattern(2000 * kBlock, 2);
    ASSERT_EQ(write(3000, before).status, kOk);
    // The middle range is longer than the slot's staging space (128 KiB less the descriptors'
    // page: 248 blocks), so it moves in several chunks; the ranges are out of order on purpose.
    const std::vector<nvme_copy_range> ranges = {range(10, 5), range(100, 600), range(3, 1)};
    auto cqe = copy(3100, ranges);
    ASSERT_EQ(cqe.status, kOk);
    EXPECT_EQ(cqe.result, 0u);

    std::vector<uint8_t> want = before;
    auto put = [&](uint64_t dest_block, uint64_t src_block, uint32_t blocks) {
        std::copy_n(src.begin() + src_block * kBlock, blocks * kBlock,
                    want.begin() + (dest_block - 3000) * kBlock);
    };
    put(3100, 10, 5);
    put(3105, 100, 600);
    put(3705, 3, 1);
    EXPECT_TRUE(read(3000, 2000) == want) << "copied blocks or their neighbours differ";
    EXPECT_TRUE(read(0, 700) == src) << "a source range changed";
}

TEST_F(CopyVerify, CopyTakesTheMostRangesAndTheLongestCopyAdvertised) {
    const auto src = pattern(kMaxRanges * kBlock, 3);
    ASSERT_EQ(write(0, src).status, kOk);
    // 128 one-block ranges in reverse order: block i lands at 8192 + 127 - i.
    std::vector<nvme_copy_range> ranges;
    for (uint32_t i = 0; i < kMaxRanges; ++i) ranges.push_back(range(kMaxRanges - 1 - i, 1));
    ASSERT_EQ(copy(8192, ranges).status, kOk);
    auto got = read(8192, kMaxRanges);
    for (uint32_t i = 0; i < kMaxRanges; ++i)
        ASSERT_TRUE(std::equal(got.begin() + i * kBlock, got.begin() + (i + 1) * kBlock,
                               src.begin() + (kMaxRanges - 1 - i) * kBlock))
            << "block " << i;
    // MCL blocks in one range: the first half of the namespace to the second.
    ASSERT_EQ(write(0, pattern(kMcl / 2 * kBlock, 4)).status, kOk);
    ASSERT_EQ(copy(kMcl / 2, {range(0, kMcl / 2)}).status, kOk);
    EXPECT_TRUE(read(kMcl / 2, 256) == read(0, 256));
    EXPECT_TRUE(read(kMcl - 256, 256) == read(kMcl / 2 - 256, 256));
}

TEST_F(CopyVerify, RefusedCopiesChangeNothing) {
    const auto dest_before = pattern(64 * kBlock, 5);
    ASSERT_EQ(write(1000, dest_before).status, kOk);
    ASSERT_EQ(write(0, pattern(64 * kBlock, 6)).status, kOk);
    struct Case {
        const char *what;
        w::Cqe cqe;
        uint8_t sct, sc;
    };
    std::vector<nvme_copy_range> too_many(kMaxRanges + 1, range(0, 1));
    const Case cases[] = {
        {"descriptor format 1", copy(1000, {range(0, 4)}, 1), NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD},
        {"129 ranges", copy(1000, too_many), NVME_SCT_CMD_SPECIFIC, NVME_SC_CMD_SIZE_LIMIT_EXCEEDED},
        {"a range longer than MSSRL", copy(1000, {range(0, kMcl + 1)}), NVME_SCT_CMD_SPECIFIC,
         NVME_SC_CMD_SIZE_LIMIT_EXCEEDED},
        {"ranges longer than MCL together", copy(1000, {range(0, kMcl / 2), range(0, kMcl / 2 + 1)}),
         NVME_SCT_CMD_SPECIFIC, NVME_SC_CMD_SIZE_LIMIT_EXCEEDED},
        {"a source past the end", copy(1000, {range(0, 4), range(kBlocks - 1, 2)}), NVME_SCT_GENERIC,
         NVME_SC_LBA_RANGE},
        {"a destination past the end", copy(kBlocks - 4, {range(0, 5)}), NVME_SCT_GENERIC, NVME_SC_LBA_RANGE},
        {"a destination overlapping a source", copy(1000, {range(0, 4), range(1005, 4)}), NVME_SCT_GENERIC,
         NVME_SC_INVALID_FIELD},
    };
    for (const Case &c : cases) {
        EXPECT_EQ(sct(c.cqe), c.sct) << c.what;
        EXPECT_EQ(sc(c.cqe), c.sc) << c.what;
        EXPECT_TRUE(dnr(c.cqe)) << c.what;
        EXPECT_EQ(c.cqe.result, 0u) << c.what << ": no range was copied";
    }
    // Fewer descriptor bytes than NR says: the data does not hold the command.
    nvme_copy_range one = range(0, 1);
    EXPECT_EQ(sc(io.run(copy_sqe(1000, 2), sizeof(one), &one)), NVME_SC_SGL_INVALID_DATA);
    EXPECT_TRUE(read(1000, 64) == dest_before) << "a refused copy wrote its destination";
}

TEST_F(CopyVerify, VerifyReadsTheRangeAndSendsNothing) {
    // The whole namespace (8 MiB, 64 chunks of the slot's buffer), and the last block.
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_verify, 0, static_cast<uint32_t>(kBlocks))).status, kOk);
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_verify, kBlocks - 1, 1)).status, kOk);
    tgt::Request &req = io.submit(io_sqe(nvme_cmd_verify, 0, 8));
    EXPECT_EQ(req.status(), kOk);
    EXPECT_EQ(req.dir, tgt::DataDir::kNone) << "Verify moves no data to the host";

    auto beyond = io.run(io_sqe(nvme_cmd_verify, kBlocks - 1, 2));
    EXPECT_EQ(sct(beyond), NVME_SCT_GENERIC);
    EXPECT_EQ(sc(beyond), NVME_SC_LBA_RANGE);
    // A Verify carries no data: an SGL that describes some is refused.
    EXPECT_EQ(sc(io.run(io_sqe(nvme_cmd_verify, 0, 1), kBlock)), NVME_SC_SGL_INVALID_DATA);
}

TEST(CopyVerifyLimits, VerifyBeyondTheSizeLimitIsRefused) {
    // 4 KiB blocks: NLB can ask for 256 MiB, VSL allows 32 MiB (8192 blocks).
    UnitTarget t(4096, 64ull << 20);
    TestQueue admin{t.target, t.port}, io{t.target, t.port};
    ASSERT_EQ(t.connect_io(io, t.bring_up(admin)).status, 0);
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_verify, 0, 8192)).status, kOk);
    auto over = io.run(io_sqe(nvme_cmd_verify, 0, 8193));
    EXPECT_EQ(sct(over), NVME_SCT_GENERIC);
    EXPECT_EQ(sc(over), NVME_SC_INVALID_FIELD);
    // MCL and MSSRL follow the block size: 8 MiB is 2048 blocks of 4 KiB.
    nvme_copy_range r = range(0, 2049);
    auto big = io.run(copy_sqe(4096, 1), sizeof(r), &r);
    EXPECT_EQ(sct(big), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(sc(big), NVME_SC_CMD_SIZE_LIMIT_EXCEEDED);
}

TEST_F(CopyVerify, IdentifyAdvertisesCopyVerifyAndTheirLimits) {
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, kOk);
    nvme_id_ctrl ctrl;
    std::memcpy(&ctrl, admin.data(), sizeof(ctrl));
    EXPECT_TRUE(ctrl.oncs & NVME_CTRL_ONCS_COPY);
    EXPECT_TRUE(ctrl.oncs & NVME_CTRL_ONCS_VERIFY);
    EXPECT_EQ(ctrl.ocfs, 1u) << "descriptor format 0h only";

    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 1), 4096).status, kOk);
    nvme_id_ns ns;
    std::memcpy(&ns, admin.data(), sizeof(ns));
    EXPECT_EQ(ns.mssrl, kMcl);
    EXPECT_EQ(ns.mcl, kMcl);
    EXPECT_EQ(ns.msrc, kMaxRanges - 1) << "0's based";

    // CNS 06h, CSI NVM (0): VSL = 2^13 pages of 4 KiB = 32 MiB.
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CSI_CTRL), 4096).status, kOk);
    nvme_id_ctrl_nvm nvm;
    std::memcpy(&nvm, admin.data(), sizeof(nvm));
    EXPECT_EQ(nvm.vsl, 13);
}

// Failures from the backend: the error device fails the next read or write.
class CopyVerifyErrors : public ::testing::Test {
  protected:
    void SetUp() override {
        uint16_t cntlid = t.bring_up(admin);
        ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    }
    static std::shared_ptr<dataplane::ErrorDevice> make_device() {
        auto ram = dataplane::RamDevice::create(8ull << 20);
        EXPECT_TRUE(ram.ok());
        return std::make_shared<dataplane::ErrorDevice>(*ram);
    }
    std::shared_ptr<dataplane::ErrorDevice> dev = make_device();
    UnitTarget t{dev};
    TestQueue admin{t.target, t.port}, io{t.target, t.port};
};

TEST_F(CopyVerifyErrors, AFailingReadFailsVerify) {
    const uint16_t media = w::Status::make(NVME_SCT_MEDIA, NVME_SC_READ_ERROR, false);
    dev->inject(dataplane::InjectOp::kRead, 1, media);
    auto cqe = io.run(io_sqe(nvme_cmd_verify, 0, 8));
    EXPECT_EQ(sct(cqe), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(cqe), NVME_SC_READ_ERROR);
    EXPECT_EQ(dev->injected(dataplane::InjectOp::kRead), 1u);
    EXPECT_EQ(io.run(io_sqe(nvme_cmd_verify, 0, 8)).status, kOk) << "only the next read was to fail";
}

TEST_F(CopyVerifyErrors, AFailingWriteFailsCopyNamingItsRange) {
    const uint16_t fault = w::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
    dev->inject(dataplane::InjectOp::kWrite, 1, fault);
    nvme_copy_range r[2] = {range(0, 4), range(8, 4)};
    auto cqe = io.run(copy_sqe(100, 2), sizeof(r), r);
    EXPECT_EQ(sct(cqe), NVME_SCT_MEDIA);
    EXPECT_EQ(sc(cqe), NVME_SC_WRITE_FAULT);
    EXPECT_EQ(cqe.result, 0u) << "the first range is the lowest not copied";
    EXPECT_EQ(dev->injected(dataplane::InjectOp::kWrite), 1u);
    EXPECT_EQ(io.run(copy_sqe(100, 2), sizeof(r), r).status, kOk);
}

} // namespace
} // namespace skiff::test
