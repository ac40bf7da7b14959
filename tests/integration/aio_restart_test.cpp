// skiff-target on the aio backend: a namespace stored in a real file in a temporary folder.
// Data written through the initiator survives stopping and starting the target again; Write
// Zeroes and Deallocate reach the file; Identify says truthfully what deallocation does.
#include "target_fixture.hpp"

#include <cstdlib>
#include <filesystem>

using namespace skiff;
using namespace skiff::itest;

namespace {

class integration_aio : public TargetTest {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-aio-itest-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        file_ = dir_ + "/ns1.img";
    }
    void TearDown() override {
        TargetTest::TearDown();
        std::filesystem::remove_all(dir_);
    }
    // Stops the running target (expecting a clean exit) so another can start on the same file.
    void restart(const std::vector<std::string> &args) {
        ASSERT_EQ(target_->stop(), 0) << target_->log();
        target_.reset();
        io_port_ = disc_port_ = 0;
        start_target(args);
    }
    std::string dir_, file_;
};

TEST_F(integration_aio, DataSurvivesATargetRestart) {
    // First start creates the file at the size asked for, with two poll groups.
    start_target({"--backend", "aio", "--path", file_, "--size", "64MiB", "--cores", "2"});
    ASSERT_EQ(std::filesystem::file_size(file_), 64ull << 20);
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    struct Extent {
        uint64_t lba;
        uint32_t bytes;
    };
    const std::vector<Extent> extents{
        {0, 512}, {8, 4096}, {1000, 128 * 1024}, {(64ull << 20) / kBlock - 8, 4096}};
    for (const auto &e : extents) {
        auto data = pattern(e.bytes, static_cast<uint32_t>(e.lba + 1));
        ASSERT_OK(ctrl->write(0, 1, e.lba, e.bytes / kBlock, data.data(), e.bytes));
    }
    // Zeroed and deallocated ranges inside written data.
    auto ones = std::vector<uint8_t>(8 * kBlock, 0x5A);
    ASSERT_OK(ctrl->write(0, 1, 2000, 8, ones.data(), 8 * kBlock));
    ASSERT_OK(ctrl->write(0, 1, 3000, 8, ones.data(), 8 * kBlock));
    ASSERT_OK(ctrl->write_zeroes(0, 1, 2000, 8));
    ASSERT_OK(ctrl->deallocate(0, 1, {nvme_dsm_range{0, 8, 3000}}));
    ASSERT_OK(ctrl->flush(0, 1));
    auto idns = ctrl->identify_namespace(1);
    ASSERT_OK(idns);
    // A file on a file system that punches holes: deallocated blocks read as zeroes.
    EXPECT_EQ(idns->dlfeat & 0x7, 1);
    auto idctrl = ctrl->identify_controller();
    ASSERT_OK(idctrl);
    EXPECT_TRUE(idctrl->oncs & NVME_CTRL_ONCS_DSM);
    ctrl.reset();

    // Second start: no size given, the file's size is the namespace's.
    restart({"--backend", "aio", "--path", file_, "--cores", "1"});
    ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    auto ns = ctrl->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->nsze, (64ull << 20) / kBlock);
    for (const auto &e : extents) {
        SCOPED_TRACE("extent at LBA " + std::to_string(e.lba));
        std::vector<uint8_t> back(e.bytes, 0xEE);
        ASSERT_OK(ctrl->read(0, 1, e.lba, e.bytes / kBlock, back.data(), e.bytes));
        EXPECT_TRUE(back == pattern(e.bytes, static_cast<uint32_t>(e.lba + 1)))
            << "data lost across the restart";
    }
    const std::vector<uint8_t> zeroes(8 * kBlock, 0);
    for (uint64_t lba : {2000u, 3000u}) {
        std::vector<uint8_t> back(8 * kBlock, 0xEE);
        ASSERT_OK(ctrl->read(0, 1, lba, 8, back.data(), 8 * kBlock));
        EXPECT_TRUE(back == zeroes) << "LBA " << lba << " should read back as zeroes";
    }
}

TEST_F(integration_aio, BadPathsFailAtStartupNamingThePath) {
    // A missing file without --size: nothing to create it with.
    TargetProcess missing({"--backend", "aio", "--path", file_, "--listen",
                           "127.0.0.1:" + std::to_string(free_port()), "--discovery", "none"},
                          free_port());
    EXPECT_FALSE(missing.started());
    EXPECT_NE(missing.stop(), 0);
    EXPECT_NE(missing.log().find(file_), std::string::npos) << missing.log();
    EXPECT_NE(missing.log().find("does not exist"), std::string::npos) << missing.log();
}

} // namespace
