// Local users against the management socket and `save` (issue 37). The attacker is a real
// unprivileged process: `setpriv --reuid=nobody --regid=nogroup --clear-groups`. It must not
//   - use the socket of a target started under umask 000 (the socket is 0660, not 0777),
//   - get past the peer check when the socket's mode is loosened anyway,
//   - have skiff-target serve from a folder it owns (it could swap the socket for its own),
//   - receive a request from skiff-ctl through a socket of its own at the path skiff-ctl uses,
//   - read the secrets `save` writes, by preparing the temporary file or the target file first.
// setpriv needs root: the tests skip otherwise (they run as root here and in CI).
#include "../support/build_paths.hpp"
#include "../helpers/child_program.hpp"
#include "../helpers/program_for_other_users.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/auth/dhchap_key.hpp"

#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

namespace skiff::itest {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kSub = "nqn.2026-11.io.skiff:access";
const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:5d1e0c3b-2a19-4f08-9e7d-6c5b4a392817";

// A DH-HMAC-CHAP secret only these tests know: what the attacker must never see.
std::string secret_key() {
    nvmeof::auth::DhchapKey k;
    nvmeof::auth::Bytes raw(32);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = uint8_t(0x3C + 7 * i);
    k.key = nvmeof::auth::Secret(raw);
    return nvmeof::auth::format_dhchap_key(k);
}

// 'text' as one shell word.
std::string quoted(const std::string &text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// A copy nobody can run wherever the build tree is (see program_for_other_users.hpp).
std::string ctl_binary() {
    return skiff::test::program_for_other_users(skiff::test::bin_dir() + "/skiff-ctl");
}

// skiff-ctl as a shell command (through the test emulator of a cross build), finding the build's
// shared library beside the copy (a sanitizer build links skiff-ctl against it). `env` comes
// before the emulator, so it runs natively, and the command may follow `timeout`.
std::string ctl_command(const std::string &args) {
    return "env " + skiff::test::other_users_library_path_assignment() + " " +
           skiff::test::shell_command(ctl_binary() + " " + args);
}

// A shell command, stdout and stderr captured (no emulator prefix: ctl_command() adds it).
CommandOutput shell(const std::string &command) {
    CommandOutput r{-1, ""};
    FILE *p = ::popen((command + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof(buf), p)) r.output.append(buf, n);
    int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

// A shell command run as nobody:nogroup with no supplementary groups (other setpriv options
// instead, e.g. "--groups=0").
CommandOutput as_nobody(const std::string &command, const std::string &setpriv_extra = "--clear-groups") {
    return shell("setpriv --reuid=nobody --regid=nogroup " + setpriv_extra + " -- sh -c " + quoted(command));
}

class ManagementAccessTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "needs root: the attacker is started as nobody with setpriv";
        if (std::system("command -v setpriv >/dev/null") != 0) GTEST_SKIP() << "setpriv (util-linux) missing";
        char tmpl[] = "/tmp/skiff-access-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        ::chmod(dir_.c_str(), 0755); // nobody may look in, not write
        // Like /tmp: everyone may create files here, nobody may remove another's.
        shared_ = dir_ + "/shared";
        fs::create_directory(shared_);
        ::chmod(shared_.c_str(), 01777);
        socket_ = dir_ + "/ctl.sock";
        port_ = free_port();
    }
    void TearDown() override {
        if (target_ && HasFailure()) std::cerr << target_->log();
        target_.reset();
        if (attacker_pid_ > 0) ::kill(attacker_pid_, SIGKILL);
        if (!dir_.empty()) fs::remove_all(dir_);
    }

    json config(const std::string &socket) const {
        return {{"target", {{"management_socket", socket}}},
                {"backends", {{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}},
                {"subsystems",
                 {{{"nqn", kSub},
                   {"allowed_hosts", {kHost}},
                   {"namespaces", {{{"nsid", 1}, {"backend", "ram1"}}}}}}},
                {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port_}}}},
                {"discovery", nullptr},
                {"hosts", {{{"nqn", kHost}, {"dhchap_key", secret_key()}}}}};
    }
    // skiff-target on `socket`, started under umask 000 (the worst an administrator's shell or a
    // unit without UMask= can hand it).
    void start(const std::string &socket) {
        std::string path = dir_ + "/target.json";
        std::ofstream(path) << config(socket).dump(2);
        ::chmod(path.c_str(), 0600);
        mode_t old = ::umask(0);
        target_ = std::make_unique<TargetProcess>(std::vector<std::string>{"--config", path}, port_);
        ::umask(old);
    }
    CommandOutput ctl(const std::string &socket, const std::string &args) const {
        return run_command(ctl_binary() + " --socket " + socket + " " + args);
    }

    std::string dir_, shared_, socket_;
    uint16_t port_ = 0;
    std::unique_ptr<TargetProcess> target_;
    pid_t attacker_pid_ = -1;
};

TEST_F(ManagementAccessTest, TheSocketOfATargetStartedUnderUmask000IsClosedToOtherUsers) {
    start(socket_);
    ASSERT_TRUE(target_->started());
    struct stat st {};
    ASSERT_EQ(::stat(socket_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0660u) << "the socket's mode must not come from the umask";

    CommandOutput attack = as_nobody(ctl_command("--socket " + socket_ + " list"));
    EXPECT_NE(attack.exit_code, 0) << attack.output;
    EXPECT_EQ(attack.output.find(kSub), std::string::npos) << attack.output;
    EXPECT_EQ(ctl(socket_, "list").exit_code, 0) << "root still manages the target";
}

TEST_F(ManagementAccessTest, ThePeerCheckRefusesOtherUsersEvenThroughALooseSocket) {
    start(socket_);
    ASSERT_TRUE(target_->started());
    ASSERT_EQ(::chmod(socket_.c_str(), 0666), 0); // an administrator's mistake

    CommandOutput attack = as_nobody(ctl_command("--socket " + socket_ + " list"));
    EXPECT_NE(attack.exit_code, 0) << attack.output;
    EXPECT_NE(attack.output.find("not permitted"), std::string::npos) << attack.output;
    EXPECT_EQ(attack.output.find(kSub), std::string::npos) << attack.output;
    EXPECT_NE(target_->log().find("refused a connection"), std::string::npos) << "the target logs it";

    // A member of the socket's group (the management group) is let in.
    struct stat st {};
    ASSERT_EQ(::stat(socket_.c_str(), &st), 0);
    CommandOutput member =
        as_nobody(ctl_command("--socket " + socket_ + " list"), "--groups=" + std::to_string(st.st_gid));
    EXPECT_EQ(member.exit_code, 0) << member.output;
    EXPECT_NE(member.output.find(kSub), std::string::npos) << member.output;
}

TEST_F(ManagementAccessTest, TheTargetRefusesASocketFolderAnotherUserOwns) {
    // nobody prepares the folder before the target starts: as its owner it could later replace
    // the target's socket with its own.
    const std::string squat = shared_ + "/squat";
    CommandOutput made = as_nobody("mkdir -m 0755 " + squat);
    ASSERT_EQ(made.exit_code, 0) << made.output;
    start(squat + "/ctl.sock");
    EXPECT_FALSE(target_->started()) << "the target serves from a folder nobody owns";
    EXPECT_NE(target_->log().find("belongs to uid 65534"), std::string::npos) << target_->log();
    EXPECT_FALSE(fs::exists(squat + "/ctl.sock"));
}

TEST_F(ManagementAccessTest, SkiffCtlSendsNothingToASocketAnotherUserServes) {
    if (std::system("command -v socat >/dev/null") != 0) GTEST_SKIP() << "socat missing";
    // nobody listens where an administrator's skiff-ctl will look, recording what it is sent.
    const std::string evil = shared_ + "/evil", sock = evil + "/ctl.sock", got = evil + "/got";
    ASSERT_EQ(as_nobody("mkdir -m 0755 " + evil).exit_code, 0);
    CommandOutput listen =
        as_nobody("socat -u UNIX-LISTEN:" + sock + ",mode=0777 CREATE:" + got + " >/dev/null 2>&1 & echo $!");
    attacker_pid_ = std::atoi(listen.output.c_str());
    for (int i = 0; i < 100 && !fs::exists(sock); ++i) std::this_thread::sleep_for(50ms);
    ASSERT_TRUE(fs::exists(sock)) << listen.output;

    const std::string key_file = dir_ + "/host.key";
    std::ofstream(key_file) << secret_key() << "\n";
    ::chmod(key_file.c_str(), 0600);
    CommandOutput sent = shell("timeout 10 " + ctl_command("--socket " + sock + " host add " + kSub + " " +
                                                           kHost + " --dhchap-key-file " + key_file));
    EXPECT_NE(sent.exit_code, 0) << sent.output;
    EXPECT_NE(sent.output.find("refusing to talk to"), std::string::npos) << sent.output;
    EXPECT_NE(sent.output.find("uid 65534"), std::string::npos) << sent.output;
    std::this_thread::sleep_for(200ms); // socat writes what it read, if anything, and exits
    std::ifstream in(got);
    std::string seen((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(seen.find("DHHC-1"), std::string::npos) << "the attacker received: " << seen;
    EXPECT_EQ(seen.find("host.add"), std::string::npos) << "the attacker received: " << seen;
}

TEST_F(ManagementAccessTest, SaveKeepsTheSecretsFromAUserWhoPreparedTheFilesFirst) {
    start(socket_);
    ASSERT_TRUE(target_->started());
    // The administrator saves into a folder everyone may write (like /tmp). nobody was there
    // first: the temporary file an older skiff wrote through, and the destination itself.
    const std::string saved = shared_ + "/saved.json";
    ASSERT_EQ(as_nobody("umask 000; : > " + saved + ".tmp; : > " + saved).exit_code, 0);

    CommandOutput save = ctl(socket_, "save " + saved);
    ASSERT_EQ(save.exit_code, 0) << save.output;

    struct stat st {};
    ASSERT_EQ(::stat(saved.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 0u) << "the saved file must be the target's, not the attacker's";
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    std::ifstream in(saved);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(secret_key()), std::string::npos) << "save writes the secrets (for root)";

    for (const std::string &file : {saved, saved + ".tmp"}) {
        CommandOutput read = as_nobody("cat " + file);
        EXPECT_EQ(read.output.find("DHHC-1"), std::string::npos) << file << ": " << read.output;
    }
    // No temporary file is left behind.
    for (auto &e : fs::directory_iterator(shared_))
        EXPECT_TRUE(e.path() == saved || e.path() == saved + ".tmp") << "left behind: " << e.path();
}

} // namespace
} // namespace skiff::itest
