// The fixture every integration test uses: a fresh skiff-target child process on free loopback
// ports, and shortcuts to connect the initiator library to it.
#pragma once

#include "../support/pattern.hpp"
#include "target_process.hpp"

#include "skiff/nvmeof/host/controller.hpp"
#include "skiff/nvmeof/transport/ip_address.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace skiff::itest {

// Fails the current test (with the error's text) unless `expr` (a Status or Result) is ok.
#define ASSERT_OK(expr)                                                                                      \
    do {                                                                                                     \
        const auto &ok_result_ = (expr);                                                                     \
        ASSERT_TRUE(ok_result_.ok()) << #expr << ": " << ok_result_.error().describe();                      \
    } while (0)

constexpr const char *kNqn = "nqn.2026-11.io.skiff:itest";
constexpr const char *kSerial = "ITEST0001";
constexpr const char *kModel = "skiff-itest";
constexpr uint64_t kSizeBytes = 64ull << 20;
constexpr uint32_t kBlock = 512;

class TargetTest : public ::testing::Test {
  protected:
    // Starts skiff-target: I/O listener and discovery listener on free ports, RAM backend of
    // kSizeBytes in kBlock blocks, kSerial/kModel; an option given in `extra` replaces the default.
    // io_port_ / disc_port_ may be chosen before the call (free_port()), e.g. to name them in extra;
    // both listen on loopback_.
    // Ports chosen here are free when chosen, but under ctest -j another test's connection may
    // take one before the target binds it: then the target is started again on fresh ones.
    void start_target(const std::vector<std::string> &extra = {}) {
        const bool own_io = io_port_ == 0, own_disc = disc_port_ == 0;
        for (int attempt = 1;; ++attempt) {
            if (own_io) io_port_ = free_port();
            if (own_disc) disc_port_ = free_port();
            launch_target(extra);
            if (target_->started() || attempt == 3 || !(own_io || own_disc) ||
                target_->log().find("Address already in use") == std::string::npos)
                break;
        }
        ASSERT_TRUE(target_->started()) << "skiff-target did not answer an ICReq on port " << io_port_
                                        << "\ncommand: " << target_->command_line() << "\noutput:\n"
                                        << target_->log();
    }

    void launch_target(const std::vector<std::string> &extra) {
        const std::vector<std::pair<std::string, std::string>> defaults{
            {"--listen", nvmeof::transport::host_port(loopback_, io_port_)},
            {"--discovery", nvmeof::transport::host_port(loopback_, disc_port_)},
            {"--nqn", kNqn},
            {"--backend", "ram"},
            {"--size", "64MiB"},
            {"--block-size", std::to_string(kBlock)},
            {"--serial", kSerial},
            {"--model", kModel},
            {"--log-level", "info"}};
        std::vector<std::string> args;
        for (const auto &[name, value] : defaults) {
            if (std::find(extra.begin(), extra.end(), name) != extra.end()) continue;
            args.push_back(name);
            args.push_back(value);
        }
        args.insert(args.end(), extra.begin(), extra.end());
        target_ = std::make_unique<TargetProcess>(args, ready_port_ ? ready_port_ : io_port_, loopback_);
    }

    nvmeof::host::ConnectOptions options(const std::string &subnqn = kNqn) const {
        nvmeof::host::ConnectOptions o;
        o.addr = loopback_;
        o.port = io_port_;
        o.subnqn = subnqn;
        o.timeout = std::chrono::seconds(10);
        return o;
    }

    // Connects; nullptr (and a test failure naming the error) when that fails.
    std::unique_ptr<nvmeof::host::Controller> connect(const nvmeof::host::ConnectOptions &o) {
        Result<std::unique_ptr<nvmeof::host::Controller>> c = nvmeof::host::Controller::connect(o);
        if (!c) {
            ADD_FAILURE() << "connect to " << o.subnqn << " at port " << o.port << ": "
                          << c.error().describe();
            return nullptr;
        }
        return std::move(c.value());
    }

    // Connects through `port` (on loopback_) and reads block 0: that listener serves I/O.
    void expect_io_through(uint16_t port) {
        nvmeof::host::ConnectOptions o = options();
        o.port = port;
        auto ctrl = connect(o);
        ASSERT_NE(ctrl, nullptr);
        std::vector<uint8_t> buf(kBlock);
        ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock));
    }

    void TearDown() override {
        if (!target_) return;
        // SIGTERM is a clean shutdown: the target must exit 0.
        const int code = target_->stop();
        EXPECT_EQ(code, 0) << "skiff-target exit code after SIGTERM";
        if (HasFailure())
            std::cerr << "---- skiff-target output (" << target_->command_line() << ")\n"
                      << target_->log() << "---- end of skiff-target output\n";
        target_.reset();
    }

    uint16_t io_port_ = 0;
    uint16_t disc_port_ = 0;
    uint16_t ready_port_ = 0;            // where start_target() waits for an ICResp (0: io_port_)
    std::string loopback_ = "127.0.0.1"; // the listeners' address: "::1" for IPv6
    std::unique_ptr<TargetProcess> target_;
};

// Bytes that differ per block and per run position, so a misplaced block shows.
using skiff::test::pattern;

} // namespace skiff::itest
