// Drives one tests/helpers/comch_peer process (a comch server or client in its own process) over
// its stdin/stdout, while the test keeps progressing its own end: wait_for() polls the child's
// output and calls `progress` between polls, so both ends move.
#pragma once

#include "../support/build_paths.hpp"
#include "../helpers/child_program.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

namespace skiff::test {

class ComchPeerProcess {
  public:
    ComchPeerProcess(const char *role, const std::string &name) {
        int to_child[2], from_child[2];
        EXPECT_EQ(pipe(to_child), 0);
        EXPECT_EQ(pipe(from_child), 0);
        pid_ = fork();
        if (pid_ == 0) {
            dup2(to_child[0], STDIN_FILENO);
            dup2(from_child[1], STDOUT_FILENO);
            close(to_child[1]);
            close(from_child[0]);
            exec_program({skiff::test::bin_dir() + "/comch_peer", role, name});
            _exit(127);
        }
        close(to_child[0]);
        close(from_child[1]);
        in_ = to_child[1];
        out_ = from_child[0];
    }
    ~ComchPeerProcess() {
        if (pid_ > 0) {
            ::close(in_); // end of input: the peer stops and exits
            waitpid(pid_, nullptr, 0);
        }
        ::close(out_);
    }
    ComchPeerProcess(const ComchPeerProcess &) = delete;
    ComchPeerProcess &operator=(const ComchPeerProcess &) = delete;

    void command(const std::string &cmd) {
        std::string line = cmd + "\n";
        ASSERT_EQ(::write(in_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
    }

    // The next output line starting with `prefix` (earlier lines are kept in seen()); "" when the
    // child's output ended first.
    std::string wait_for(const std::string &prefix, const std::function<void()> &progress = {}) {
        for (;;) {
            for (size_t i = next_; i < lines_.size(); ++i) {
                if (lines_[i].rfind(prefix, 0) == 0) {
                    next_ = i + 1;
                    return lines_[i];
                }
            }
            if (eof_) return "";
            if (progress) progress();
            pollfd p{out_, POLLIN, 0};
            if (::poll(&p, 1, progress ? 0 : 100) <= 0) continue;
            char buf[4096];
            ssize_t n = ::read(out_, buf, sizeof buf);
            if (n <= 0) {
                eof_ = true;
                continue;
            }
            partial_.append(buf, static_cast<size_t>(n));
            for (size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
                lines_.push_back(partial_.substr(0, nl));
                partial_.erase(0, nl + 1);
            }
        }
    }
    const std::vector<std::string> &seen() const { return lines_; }

    // SIGKILL, then reap: the process and its sockets are gone when this returns.
    void kill_now() {
        ::kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    // EXIT, then the exit status (-1 if it did not exit normally).
    int exit_normally() {
        command("EXIT");
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

  private:
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    bool eof_ = false;
    std::string partial_;
    std::vector<std::string> lines_;
    size_t next_ = 0;
};

} // namespace skiff::test
