// The error backend against the real skiff-target: failures armed in the configuration and
// live through skiff-ctl error-inject reach the initiator with the chosen NVMe status, exactly
// as many times as asked, while the namespace next to it keeps serving; bad requests are
// refused with a message naming what is wrong.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace skiff;
using namespace skiff::itest;
using json = nlohmann::json;

namespace {

const std::string kSub = "nqn.2026-11.io.skiff:flaky";

class ErrorInject : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-errinj-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
        json doc = {
            {"target", {{"cores", 2}, {"management_socket", socket_}}},
            {"backends",
             {{{"name", "flaky"},
               {"kind", "error"},
               {"base", {{"kind", "ram"}, {"size", "16MiB"}}},
               {"inject", {{"write", {{"count", 1}, {"status", "0x280"}}}}}},
              {{"name", "steady"}, {"kind", "ram"}, {"size", "16MiB"}}}},
            {"subsystems",
             {{{"nqn", kSub},
               {"namespaces", {{{"nsid", 1}, {"backend", "flaky"}}, {{"nsid", 2}, {"backend", "steady"}}}}}}},
            {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
            {"discovery", nullptr}};
        std::ofstream(dir_ + "/target.json") << doc.dump(2);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", dir_ + "/target.json"},
                                                  port_);
        ASSERT_TRUE(target_->started()) << target_->log();
        nvmeof::host::ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.timeout = std::chrono::seconds(10);
        auto c = nvmeof::host::Controller::connect(o);
        ASSERT_TRUE(c.ok()) << c.error().describe();
        ctrl_ = std::move(c.value());
    }
    void TearDown() override {
        ctrl_.reset();
        if (target_) {
            EXPECT_EQ(target_->stop(), 0);
            if (HasFailure()) std::cerr << target_->log();
        }
        std::filesystem::remove_all(dir_);
    }
    CommandOutput ctl(const std::string &args) {
        return run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " " + args);
    }
    // The raw completion status of one 4 KiB command on namespace nsid.
    uint16_t status_of(nvmeof::wire::Sqe sqe, nvmeof::host::DataDir dir) {
        auto done =
            ctrl_->io_queue(0).execute(sqe, dir, buf_.data(), dir == nvmeof::host::DataDir::kNone ? 0 : 4096);
        EXPECT_TRUE(done.ok()) << (done.ok() ? "" : done.error().describe());
        return done.ok() ? done->status() & 0xFFFE : 0xFFFF;
    }
    uint16_t read(uint32_t nsid) {
        return status_of(nvmeof::host::cmd::read(nsid, 8, 8), nvmeof::host::DataDir::kControllerToHost);
    }
    uint16_t write(uint32_t nsid) {
        return status_of(nvmeof::host::cmd::write(nsid, 8, 8), nvmeof::host::DataDir::kHostToController);
    }
    uint16_t flush(uint32_t nsid) {
        return status_of(nvmeof::host::cmd::flush(nsid), nvmeof::host::DataDir::kNone);
    }

    static constexpr uint16_t kReadError = nvmeof::wire::Status::make(NVME_SCT_MEDIA, NVME_SC_READ_ERROR);
    static constexpr uint16_t kWriteFault = nvmeof::wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT);

    std::string dir_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
    std::unique_ptr<nvmeof::host::Controller> ctrl_;
    std::vector<uint8_t> buf_ = pattern(4096, 7);
};

TEST_F(ErrorInject, ConfiguredFailureHitsTheFirstWriteOnly) {
    EXPECT_EQ(write(1), kWriteFault) << "the configuration armed one Write Fault";
    EXPECT_EQ(write(1), 0);
    EXPECT_EQ(write(2), 0);
    // RAM namespaces only: no volatile write cache to report.
    auto id = ctrl_->identify_controller();
    ASSERT_OK(id);
    EXPECT_EQ(id->vwc & NVME_CTRL_VWC_PRESENT, 0);
}

TEST_F(ErrorInject, SkiffCtlFailsTheNextReadsWithTheChosenStatus) {
    ASSERT_EQ(write(1), kWriteFault);
    ASSERT_EQ(write(1), 0); // buf_ now stored at LBA 8 of namespace 1
    auto r = ctl("error-inject flaky --op read --count 3 --status 0x281");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(json::parse(r.output)["armed"]["read"]["pending"], 3);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(read(1), kReadError) << "read " << i;
        EXPECT_EQ(read(2), 0) << "the other namespace keeps serving";
    }
    const auto written = pattern(4096, 7); // what the second write stored (reads above reuse buf_)
    std::fill(buf_.begin(), buf_.end(), 0);
    EXPECT_EQ(read(1), 0) << "only 3 reads were to fail";
    EXPECT_EQ(buf_, written) << "the data behind the injected errors is intact";

    // Flush with Internal Error and Do Not Retry.
    r = ctl("error-inject flaky --op flush --count 1 --status 0x6 --dnr");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(flush(1), nvmeof::wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, true));
    EXPECT_EQ(flush(1), 0);

    // Armed, then disarmed: nothing fails.
    ASSERT_EQ(ctl("error-inject flaky --op write --count 5 --status 0x280").exit_code, 0);
    r = ctl("error-inject flaky --op write --count 0");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(write(1), 0);
    json armed = json::parse(r.output)["armed"];
    EXPECT_EQ(armed["read"]["injected"], 3);
    EXPECT_EQ(armed["flush"]["injected"], 1);
    EXPECT_EQ(armed["write"]["pending"], 0);
}

TEST_F(ErrorInject, AddedLatencyHoldsTheCommandWhileOthersComplete) {
    ASSERT_EQ(write(1), kWriteFault);
    ASSERT_EQ(write(1), 0);
    // Latency only (no status): the read waits 300 ms in the poll group, then succeeds.
    auto r = ctl("error-inject flaky --op read --count 1 --delay-us 300000");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(json::parse(r.output)["armed"]["read"]["delay_us"], 300000);
    std::vector<uint8_t> slow(4096, 0), fast(4096, 0xEE);
    auto &q = ctrl_->io_queue(0);
    auto held = q.submit(nvmeof::host::cmd::read(1, 8, 8), nvmeof::host::DataDir::kControllerToHost,
                         slow.data(), 4096);
    ASSERT_OK(held);
    auto other = q.submit(nvmeof::host::cmd::read(2, 8, 8), nvmeof::host::DataDir::kControllerToHost,
                          fast.data(), 4096);
    ASSERT_OK(other);
    std::vector<uint16_t> order;
    for (int i = 0; i < 100 && order.size() < 2; ++i) {
        ASSERT_OK(q.poll(std::chrono::milliseconds(100)));
        nvmeof::host::Completion c;
        while (q.pop_completion(c)) {
            EXPECT_TRUE(c.nvme_ok()) << "cid " << c.cid;
            order.push_back(c.cid);
        }
    }
    ASSERT_EQ(order.size(), 2u);
    EXPECT_EQ(order[0], *other) << "the read on the other namespace is not held behind the delayed one";
    EXPECT_EQ(slow, pattern(4096, 7)) << "the delayed read returns the data";
}

TEST_F(ErrorInject, BadRequestsAreRefusedNamingTheProblem) {
    auto r = ctl("error-inject steady --op read --count 1 --status 0x281");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("is not an error backend"), std::string::npos) << r.output;
    r = ctl("error-inject nosuch --op read --count 1 --status 0x281");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("not the name of a backend"), std::string::npos) << r.output;
    r = ctl("error-inject flaky --op read --count 1 --status 0x900");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("a status <= 0x7ff"), std::string::npos) << r.output;
    r = ctl("error-inject flaky --op write --count 2"); // neither a status nor a delay
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("at least one of them non-zero"), std::string::npos) << r.output;
    r = ctl("error-inject flaky --op read --count 1 --status junk");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_EQ(read(1), 0) << "nothing was armed";
}

} // namespace
