// Copy and Verify through skiff-target over NVMe/TCP loopback with skiff's initiator, on each
// backend this machine can run (RAM, null, aio on a real file): Identify advertises both, a
// Copy's destination reads back what its sources held, Verify answers for good ranges, and bad
// commands get their statuses over the wire.
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <cstdlib>
#include <filesystem>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

class integration_copy_verify : public TargetTest, public testing::WithParamInterface<std::string> {
  protected:
    void SetUp() override {
        std::vector<std::string> args{"--backend", GetParam()};
        if (GetParam() == "aio") {
            char tmpl[] = "/tmp/skiff-copy-itest-XXXXXX";
            ASSERT_NE(mkdtemp(tmpl), nullptr);
            dir_ = tmpl;
            args.insert(args.end(), {"--path", dir_ + "/ns1.img"});
        }
        start_target(args);
        ctrl_ = connect(options());
        ASSERT_NE(ctrl_, nullptr);
    }
    void TearDown() override {
        ctrl_.reset();
        TargetTest::TearDown();
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }
    // Reads of at most 128 KiB (MDTS) each.
    std::vector<uint8_t> read(uint64_t slba, uint32_t nlb) {
        std::vector<uint8_t> v(size_t(nlb) * kBlock);
        for (uint32_t done = 0; done < nlb;) {
            const uint32_t n = std::min(nlb - done, 256u);
            Status st = ctrl_->read(0, 1, slba + done, n, v.data() + size_t(done) * kBlock, n * kBlock);
            EXPECT_TRUE(st.ok()) << st.error().describe();
            done += n;
        }
        return v;
    }
    // A command's raw completion, for its status.
    Completion run(const wire::Sqe &sqe, DataDir dir = DataDir::kNone, void *data = nullptr,
                   uint32_t len = 0) {
        Result<Completion> c = ctrl_->io_queue(0).execute(sqe, dir, data, len);
        EXPECT_TRUE(c.ok()) << c.error().describe();
        return c.ok() ? *c : Completion{};
    }
    Completion copy(uint64_t sdlba, std::vector<nvme_copy_range> ranges, uint8_t format = 0) {
        return run(cmd::copy(1, sdlba, static_cast<uint32_t>(ranges.size()), format),
                   DataDir::kHostToController, ranges.data(),
                   static_cast<uint32_t>(ranges.size() * sizeof(nvme_copy_range)));
    }
    static nvme_copy_range range(uint64_t slba, uint32_t blocks) {
        nvme_copy_range r{};
        r.slba = slba;
        r.nlb = static_cast<uint16_t>(blocks - 1);
        return r;
    }

    std::string dir_;
    std::unique_ptr<Controller> ctrl_;
    const uint64_t kBlocks = kSizeBytes / kBlock;
};

TEST_P(integration_copy_verify, IdentifyAdvertisesCopyAndVerify) {
    Result<nvme_id_ctrl> id = ctrl_->identify_controller();
    ASSERT_OK(id);
    EXPECT_TRUE(id->oncs & NVME_CTRL_ONCS_COPY);
    EXPECT_TRUE(id->oncs & NVME_CTRL_ONCS_VERIFY);
    Result<nvme_id_ns> ns = ctrl_->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->mcl, (8u << 20) / kBlock);
    EXPECT_EQ(ns->mssrl, (8u << 20) / kBlock);
    EXPECT_EQ(ns->msrc, 127);
    nvme_id_ctrl_nvm nvm{};
    Result<Completion> c = ctrl_->admin(cmd::identify(NVME_IDENTIFY_CNS_CSI_CTRL, 0),
                                        DataDir::kControllerToHost, &nvm, sizeof(nvm));
    ASSERT_OK(c);
    EXPECT_EQ(c->status(), 0);
    EXPECT_EQ(nvm.vsl, 13) << "32 MiB in 4 KiB pages, as a power of two";
}

TEST_P(integration_copy_verify, CopiedBlocksReadBackAtTheDestination) {
    const std::vector<uint8_t> data = pattern(1024 * kBlock, 17);
    ASSERT_OK(ctrl_->write(0, 1, 0, 256, data.data(), 256 * kBlock));
    ASSERT_OK(ctrl_->write(0, 1, 256, 256, data.data() + 256 * kBlock, 256 * kBlock));
    // What the sources hold now (zeroes on the null backend, which keeps nothing).
    std::vector<uint8_t> want = read(100, 400);
    const std::vector<uint8_t> first = read(7, 3);
    want.insert(want.end(), first.begin(), first.end());
    // 400 blocks then 3: the first range is longer than the slot's staging space (its 128 KiB
    // buffer less the descriptors' page), so it moves in two chunks.
    ASSERT_OK(ctrl_->copy(0, 1, 5000, {{100, 400}, {7, 3}}));
    EXPECT_TRUE(read(5000, 403) == want) << "the destination does not hold the sources";
    ASSERT_OK(ctrl_->verify(0, 1, 5000, 403));
}

TEST_P(integration_copy_verify, VerifyAnswersForTheWholeNamespaceAndRefusesPastIt) {
    // 64 MiB in 512-byte blocks is 131072 blocks: two Verifies of the most NLB allows.
    ASSERT_OK(ctrl_->verify(0, 1, 0, 65536));
    ASSERT_OK(ctrl_->verify(0, 1, 65536, 65536));
    Completion past = run(cmd::verify(1, kBlocks - 1, 2));
    EXPECT_EQ(past.sct(), NVME_SCT_GENERIC);
    EXPECT_EQ(past.sc(), NVME_SC_LBA_RANGE);
}

TEST_P(integration_copy_verify, BadCopiesGetTheirStatuses) {
    Completion format = copy(100, {range(0, 1)}, 1);
    EXPECT_EQ(format.sct(), NVME_SCT_GENERIC);
    EXPECT_EQ(format.sc(), NVME_SC_INVALID_FIELD);

    Completion many = copy(1000, std::vector<nvme_copy_range>(129, range(0, 1)));
    EXPECT_EQ(many.sct(), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(many.sc(), NVME_SC_CMD_SIZE_LIMIT_EXCEEDED);

    Completion past = copy(100, {range(0, 1), range(kBlocks, 1)});
    EXPECT_EQ(past.sct(), NVME_SCT_GENERIC);
    EXPECT_EQ(past.sc(), NVME_SC_LBA_RANGE);

    Completion overlap = copy(100, {range(90, 20)});
    EXPECT_EQ(overlap.sct(), NVME_SCT_GENERIC);
    EXPECT_EQ(overlap.sc(), NVME_SC_INVALID_FIELD);
    // The initiator's own call names the failure.
    Status st = ctrl_->copy(0, 1, kBlocks, {{0, 1}});
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().describe().find("LBA Out of Range"), std::string::npos) << st.error().describe();
}

INSTANTIATE_TEST_SUITE_P(Backends, integration_copy_verify, testing::Values("ram", "null", "aio"),
                         [](const testing::TestParamInfo<std::string> &info) { return info.param; });

} // namespace
