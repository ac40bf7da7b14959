// A fixture for tests that start skiff-target from a configuration file: a fresh folder, a free
// TCP port and a management socket path for the test to put in its configuration, then the
// target started from it and stopped (exit 0 expected) with the folder removed at teardown.
#pragma once

#include "target_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace skiff::itest {

class ConfigTargetTest : public ::testing::Test {
  protected:
    // Makes the folder /tmp/skiff-<name>-XXXXXX and picks port_ and socket_ (in it).
    void prepare(const std::string &name) {
        std::string tmpl = "/tmp/skiff-" + name + "-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
    }
    // Writes `doc` to target.json in the folder and starts skiff-target from it; it is ready once
    // it answers an ICReq on port_.
    void start_target(const nlohmann::json &doc) {
        std::ofstream(dir_ + "/target.json") << doc.dump(2);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", dir_ + "/target.json"},
                                                  port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }
    void TearDown() override {
        if (target_) {
            EXPECT_EQ(target_->stop(), 0);
            if (HasFailure()) std::cerr << target_->log();
        }
        if (!dir_.empty()) std::filesystem::remove_all(dir_);
    }
    CommandOutput ctl(const std::string &args) { return run_ctl(socket_, args); }

    std::string dir_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
};

} // namespace skiff::itest
