// DH-HMAC-CHAP secrets from files instead of command lines (where every local user reads them in
// /proc/<pid>/cmdline): skiff-target --dhchap-key-file / --dhchap-ctrl-key-file HOSTNQN=FILE and
// skiff-perf --dhchap-secret-file / --dhchap-ctrl-secret-file authenticate exactly as the argv
// forms do; a key file other users can read still works but is warned about.
#include "../support/build_paths.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/controller.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace skiff::itest {
namespace {

using namespace nvmeof::host;

const std::string kSub = "nqn.2026-11.io.skiff:keyfile";
const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:0b7c3a52-6f0e-4d2b-8a41-5e9d2c7f1a36";
// As `nvme gen-dhchap-key` prints them: the host's secret and the controller's (bidirectional).
const std::string kKey = "DHHC-1:01:WulleCBkG4oCs0iIC3Cit9gBDCLWiZ9PNXuhqytWkBIZkvGy:";
const std::string kCtrlKey = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";

class KeyFiles : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-keyfile-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        port_ = free_port();
    }
    void TearDown() override {
        if (target_ && HasFailure()) std::cerr << target_->log();
        target_.reset();
        std::filesystem::remove_all(dir_);
    }
    std::string key_file(const std::string &name, const std::string &key, mode_t mode) {
        std::string path = dir_ + "/" + name;
        std::ofstream(path) << key << "\n";
        ::chmod(path.c_str(), mode);
        return path;
    }
    void start(const std::string &key_path, const std::string &ctrl_key_path) {
        target_ = std::make_unique<TargetProcess>(
            std::vector<std::string>{"--listen", "127.0.0.1:" + std::to_string(port_), "--discovery", "none",
                                     "--size", "16MiB", "--nqn", kSub, "--allow-host", kHost,
                                     "--dhchap-key-file", kHost + "=" + key_path, "--dhchap-ctrl-key-file",
                                     kHost + "=" + ctrl_key_path},
            port_);
        ASSERT_TRUE(target_->started()) << target_->log();
    }
    Result<std::unique_ptr<Controller>> connect(const std::string &secret, const std::string &ctrl_secret) {
        ConnectOptions o;
        o.port = port_;
        o.subnqn = kSub;
        o.host.hostnqn = kHost;
        o.dhchap.secret = secret;
        o.dhchap.ctrl_secret = ctrl_secret;
        o.kato_ms = 0;
        o.timeout = std::chrono::seconds(10);
        return Controller::connect(o);
    }

    std::string dir_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
};

TEST_F(KeyFiles, TheTargetTakesHostAndControllerSecretsFromFiles) {
    start(key_file("host.key", kKey, 0600), key_file("ctrl.key", kCtrlKey, 0600));
    EXPECT_EQ(target_->log().find("holds secrets"), std::string::npos) << "0600 files are quiet";
    EXPECT_FALSE(connect("", "").ok()) << "the host must authenticate";
    auto c = connect(kKey, kCtrlKey);
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_NE(target_->command_line().find("ctrl.key"), std::string::npos);
    EXPECT_EQ(target_->command_line().find("DHHC-1"), std::string::npos) << "no secret on the command line";
}

TEST_F(KeyFiles, AKeyFileOthersCanReadWorksButIsWarnedAbout) {
    const std::string loose = key_file("loose.key", kKey, 0644);
    start(loose, key_file("ctrl.key", kCtrlKey, 0600));
    EXPECT_NE(target_->log().find("warning: " + loose + " holds secrets but its mode 0644"),
              std::string::npos)
        << target_->log();
    EXPECT_TRUE(connect(kKey, kCtrlKey).ok());
}

TEST_F(KeyFiles, BadKeyFilesAreNamedAndNothingStarts) {
    CommandOutput r = run_command(target_binary() + " --allow-host " + kHost + " --dhchap-key-file " + kHost +
                                  "=" + key_file("bad.key", "DHHC-1:01:notbase64!:", 0600));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("--dhchap-key-file " + dir_ + "/bad.key: DH-HMAC-CHAP secret"), std::string::npos)
        << r.output;
    r = run_command(target_binary() + " --dhchap-ctrl-key-file " + kHost + "=" +
                    key_file("c.key", kCtrlKey, 0600));
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("has no --dhchap-key-file"), std::string::npos) << r.output;
}

TEST_F(KeyFiles, SkiffPerfTakesItsSecretsFromFiles) {
    start(key_file("host.key", kKey, 0600), key_file("ctrl.key", kCtrlKey, 0600));
    CommandOutput r = run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(port_) +
                                  " --nqn " + kSub + " --hostnqn " + kHost + " --dhchap-secret-file " +
                                  key_file("perf.key", kKey, 0600) + " --dhchap-ctrl-secret-file " +
                                  key_file("perf-ctrl.key", kCtrlKey, 0600) +
                                  " --rw read --bs 4k --qd 1 --time 1s --ramp 0 --no-progress");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    CommandOutput wrong =
        run_command(skiff::test::bin_dir() + "/skiff-perf --port " + std::to_string(port_) + " --nqn " +
                    kSub + " --hostnqn " + kHost + " --dhchap-secret-file " + dir_ +
                    "/missing.key --time 1s --ramp 0 --no-progress");
    EXPECT_NE(wrong.exit_code, 0);
    EXPECT_NE(wrong.output.find("--dhchap-secret-file: cannot read " + dir_ + "/missing.key"),
              std::string::npos)
        << wrong.output;
}

} // namespace
} // namespace skiff::itest
