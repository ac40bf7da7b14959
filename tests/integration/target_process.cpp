#include "target_process.hpp"

#include "../support/build_paths.hpp"

#include "../helpers/child_program.hpp"

#include "skiff/nvmeof/host/pdu_framing.hpp"
#include "skiff/nvmeof/host/tcp_socket.hpp"

#include <arpa/inet.h>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace skiff::itest {

using namespace std::chrono_literals;

CommandOutput run_command(const std::string &cmd) {
    return run_host_tool(skiff::test::shell_command(cmd));
}

CommandOutput run_host_tool(const std::string &cmd) {
    CommandOutput r{-1, ""};
    FILE *p = ::popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return r;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof(buf), p)) r.output.append(buf, n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

CommandOutput run_ctl(const std::string &socket, const std::string &args) {
    return run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket + " " + args);
}

std::string target_binary() {
    return skiff::test::bin_dir() + "/skiff-target";
}

namespace {

// True when addr:port answers an ICReq with an ICResp: the target, not just a socket, is up.
bool answers_icreq(const std::string &addr, uint16_t port) {
    using namespace skiff::nvmeof;
    Result<host::TcpSocket> s = host::TcpSocket::connect(addr, port, 1000ms);
    if (!s) return false;
    wire::tcp::IcReq req = host::make_ic_req(false, false, 0, 0);
    if (!s->send_all(&req, sizeof(req), host::deadline_after(1000ms))) return false;
    wire::tcp::IcResp resp{};
    if (!s->recv_exact(&resp, sizeof(resp), host::deadline_after(2000ms))) return false;
    return resp.ch.type == wire::tcp::kIcResp;
}

// The inodes of the TCP sockets (IPv4 and IPv6) listening on `port`, from /proc/net/tcp{,6}:
// "sl local_address rem_address st ... inode", the port in hex after the colon, LISTEN = 0A.
std::vector<std::string> listening_inodes(uint16_t port) {
    std::vector<std::string> inodes;
    for (const char *table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line); // the header
        while (std::getline(in, line)) {
            std::istringstream f(line);
            std::string sl, local, remote, state, queues, timer, retrans, uid, timeout, inode;
            if (!(f >> sl >> local >> remote >> state >> queues >> timer >> retrans >> uid >> timeout >>
                  inode))
                continue;
            size_t colon = local.rfind(':');
            if (state == "0A" && colon != std::string::npos &&
                std::strtoul(local.c_str() + colon + 1, nullptr, 16) == port)
                inodes.push_back(inode);
        }
    }
    return inodes;
}

// True when process pid holds a socket listening on port. The ICResp alone does not say whose it
// is: ports come from free_port(), and a concurrently running test's target may hold the same one
// for a moment (it answered, and this test then found its own target's other listeners missing).
bool listens_on(pid_t pid, uint16_t port) {
    const std::vector<std::string> inodes = listening_inodes(port);
    if (inodes.empty()) return false;
    std::error_code ec;
    for (const auto &fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        std::error_code link_ec;
        const std::string target = std::filesystem::read_symlink(fd.path(), link_ec).string();
        for (const auto &inode : inodes)
            if (target == "socket:[" + inode + "]") return true;
    }
    return false;
}

} // namespace

TargetProcess::TargetProcess(const std::vector<std::string> &args, uint16_t ready_port,
                             const std::string &ready_addr) {
    launch(target_binary(), args, [this, ready_port, ready_addr] {
        return listens_on(pid_, ready_port) && answers_icreq(ready_addr, ready_port);
    });
}

TargetProcess::TargetProcess(const std::string &name, const std::vector<std::string> &args,
                             const std::function<bool()> &ready) {
    launch(skiff::test::bin_dir() + "/" + name, args, ready);
}

void TargetProcess::launch(const std::string &binary, const std::vector<std::string> &args,
                           const std::function<bool()> &ready) {
    char path[] = "/tmp/skiff-itest-target-XXXXXX";
    int log_fd = ::mkstemp(path);
    log_path_ = path;
    std::vector<std::string> argv_s{binary};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    for (const auto &a : argv_s) command_line_ += (command_line_.empty() ? "" : " ") + a;

    // Its own RUNTIME_DIRECTORY unless the test chose one (ServiceTest does): a target's default
    // management socket is then $RUNTIME_DIRECTORY/target.sock, never the machine-wide
    // /run/skiff/target.sock, which a concurrently running test's skiff-ctl would otherwise find.
    if (!::getenv("RUNTIME_DIRECTORY")) {
        char run[] = "/tmp/skiff-itest-run-XXXXXX";
        if (::mkdtemp(run)) run_dir_ = run;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL); // never outlive a crashed test
        if (!run_dir_.empty()) ::setenv("RUNTIME_DIRECTORY", run_dir_.c_str(), 1);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        skiff::test::exec_program(argv_s);
        ::dprintf(2, "cannot exec %s: %s\n", argv_s[0].c_str(), strerror(errno));
        ::_exit(127);
    }
    ::close(log_fd);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline && running()) {
        if (ready()) {
            started_ = true;
            return;
        }
        std::this_thread::sleep_for(50ms);
    }
}

TargetProcess::~TargetProcess() {
    stop();
    ::unlink(log_path_.c_str());
    if (!run_dir_.empty()) std::filesystem::remove_all(run_dir_);
}

bool TargetProcess::running() {
    if (pid_ <= 0) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == 0) return true;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
    return false;
}

int TargetProcess::stop() {
    if (!running()) return exit_code_;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (running()) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid_, SIGKILL);
            int status = 0;
            ::waitpid(pid_, &status, 0);
            exit_code_ = 128 + SIGKILL;
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(10ms);
    }
    return exit_code_;
}

int TargetProcess::kill_now() {
    if (!running()) return exit_code_;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exit_code_ = 128 + SIGKILL;
    pid_ = -1;
    return exit_code_;
}

std::string TargetProcess::log() const {
    std::ifstream in(log_path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace skiff::itest
