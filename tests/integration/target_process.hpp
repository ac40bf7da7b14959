// skiff-target as a real child process for the integration tests: started on free loopback
// ports, waited for until it answers an NVMe/TCP ICReq, stopped with SIGTERM, its output kept
// in a file so a failing test can show it.
#pragma once

#include "../helpers/free_port.hpp"

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace skiff::itest {

class TargetProcess {
  public:
    // Runs <bin dir>/skiff-target with args and waits (up to 20 s) until this process listens on
    // ready_port and ready_addr:ready_port answers an ICReq with an ICResp. skiff-target opens every listener
    // before it answers on any, so the others are up too. started() says whether that happened;
    // log() says why not.
    TargetProcess(const std::vector<std::string> &args, uint16_t ready_port,
                  const std::string &ready_addr = "127.0.0.1");
    // Any other skiff process (skiff-host): <bin dir>/name with args, started() once ready()
    // returned true (polled up to 20 s).
    TargetProcess(const std::string &name, const std::vector<std::string> &args,
                  const std::function<bool()> &ready);
    ~TargetProcess();
    TargetProcess(const TargetProcess &) = delete;
    TargetProcess &operator=(const TargetProcess &) = delete;

    bool started() const { return started_; }
    pid_t pid() const { return pid_; }
    bool running();
    // SIGTERM, then waits (SIGKILL after 10 s). Returns the exit code, 128+N for signal N.
    int stop();
    // SIGKILL, then waits: a crash, as the peers see it.
    int kill_now();
    std::string log() const;
    const std::string &command_line() const { return command_line_; }

  private:
    void launch(const std::string &binary, const std::vector<std::string> &args,
                const std::function<bool()> &ready);

    pid_t pid_ = -1;
    int exit_code_ = -1;
    bool started_ = false;
    std::string log_path_;
    std::string run_dir_; // the child's RUNTIME_DIRECTORY when the test set none
    std::string command_line_;
};

std::string target_binary();

// Runs a shell command to completion with its stdout and stderr captured (skiff-ctl, ...).
struct CommandOutput {
    int exit_code; // 128+N when killed by signal N
    std::string output;
};
// Runs a shell command that starts with one of the build's programs (through SKIFF_TEST_EMULATOR
// when set), stdout and stderr captured together.
CommandOutput run_command(const std::string &cmd);
// Runs a host tool (not one of the build's programs, so never through SKIFF_TEST_EMULATOR) with
// /bin/sh; stdout and stderr together, as run_command.
CommandOutput run_host_tool(const std::string &cmd);
// Runs skiff-ctl against the management socket `socket` with `args`, as run_command does.
CommandOutput run_ctl(const std::string &socket, const std::string &args);

} // namespace skiff::itest
