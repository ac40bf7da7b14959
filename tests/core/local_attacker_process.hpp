// Runs tests/helpers/local_attacker as the unprivileged user nobody (setpriv --reuid=nobody
// --regid=nogroup --clear-groups), a real process of another user next to the test, and reads its
// output lines. The test must run as root (skip_unless_root says why not).
#pragma once

#include "../support/build_paths.hpp"
#include "../helpers/child_program.hpp"
#include "../helpers/program_for_other_users.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace skiff::test {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

// Empty when the attacker can run; else why not (for GTEST_SKIP).
inline std::string why_no_attacker() {
    if (::geteuid() != 0) return "runs an attacker as the user nobody (setpriv --reuid=nobody): needs root";
    if (::access("/usr/bin/setpriv", X_OK) != 0)
        return "needs setpriv (util-linux) to run the attacker as nobody";
    return {};
}

class LocalAttacker {
  public:
    explicit LocalAttacker(const std::vector<std::string> &args) {
        // Made before fork: the child only execs.
        std::string program = program_for_other_users(skiff::test::bin_dir() + "/local_attacker");
        std::vector<std::string> env = other_users_environment();
        std::vector<char *> raw_env;
        for (auto &e : env) raw_env.push_back(e.data());
        raw_env.push_back(nullptr);
        int to_child[2], from_child[2];
        if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(to_child[0], STDIN_FILENO);
            ::dup2(from_child[1], STDOUT_FILENO);
            ::close(to_child[1]);
            ::close(from_child[0]);
            std::vector<std::string> argv = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                             "--clear-groups", "--"};
            if (!test_emulator().empty()) argv.push_back(test_emulator());
            argv.push_back(program);
            argv.insert(argv.end(), args.begin(), args.end());
            std::vector<char *> raw;
            for (auto &a : argv) raw.push_back(a.data());
            raw.push_back(nullptr);
            ::execve(raw[0], raw.data(), raw_env.data());
            ::_exit(127);
        }
        ::close(to_child[0]);
        ::close(from_child[1]);
        in_ = to_child[1];
        out_ = from_child[0];
    }
    ~LocalAttacker() {
        if (in_ >= 0) ::close(in_); // end of input: a serving attacker exits
        if (pid_ > 0) {
            for (int i = 0; i < 500 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) ::usleep(10 * 1000);
            if (::kill(pid_, 0) == 0) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, nullptr, 0);
            }
        }
        if (out_ >= 0) ::close(out_);
    }
    LocalAttacker(const LocalAttacker &) = delete;
    LocalAttacker &operator=(const LocalAttacker &) = delete;

    // The next output line; "" when the output ended or nothing came within timeout_ms (a bound on
    // failure, not a measurement). `progress` runs between polls, so the test's own end moves.
    std::string next_line(int timeout_ms, const std::function<void()> &progress = {}) {
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
        while (std::chrono::steady_clock::now() < until) {
            if (size_t nl = partial_.find('\n'); nl != std::string::npos) {
                std::string line = partial_.substr(0, nl);
                partial_.erase(0, nl + 1);
                return line;
            }
            if (progress) progress();
            pollfd p{out_, POLLIN, 0};
            if (::poll(&p, 1, progress ? 1 : 50) <= 0) continue;
            char buf[1024];
            ssize_t n = ::read(out_, buf, sizeof buf);
            if (n <= 0) return "";
            partial_.append(buf, static_cast<size_t>(n));
        }
        return "";
    }

  private:
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    std::string partial_;
};

} // namespace skiff::test
