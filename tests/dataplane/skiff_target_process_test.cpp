// The skiff-target executable as users run it: command line, startup lines, signals, errors.
#include "../support/build_paths.hpp"
#include "../helpers/child_program.hpp"
#include "../helpers/free_port.hpp"
#include "../nvmeof/raw_tcp_client.hpp"

#include "skiff/nvmeof/host/controller.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <string>
#include <vector>

namespace skiff::test {
namespace {

// A child process with its stdout and stderr in one pipe.
class TargetProcess {
  public:
    explicit TargetProcess(std::vector<std::string> args) {
        int fds[2];
        EXPECT_EQ(pipe(fds), 0);
        pid_ = fork();
        if (pid_ == 0) {
            dup2(fds[1], 1);
            dup2(fds[1], 2);
            close(fds[0]);
            args.insert(args.begin(), skiff::test::bin_dir() + "/skiff-target");
            exec_program(args);
            _exit(127);
        }
        close(fds[1]);
        out_ = fds[0];
    }
    ~TargetProcess() {
        if (pid_ > 0 && !exited_) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        close(out_);
    }

    // Reads output until `re` matches (or the process ends); returns the first capture group.
    std::string wait_for(const std::regex &re) {
        std::smatch m;
        for (;;) {
            if (std::regex_search(output, m, re)) return m.size() > 1 ? m[1].str() : m[0].str();
            pollfd p{out_, POLLIN, 0};
            if (::poll(&p, 1, 20000) <= 0) return {}; // safety net against a hung child
            char buf[4096];
            ssize_t n = read(out_, buf, sizeof(buf));
            if (n <= 0) return {};
            output.append(buf, static_cast<size_t>(n));
        }
    }
    int wait_exit() {
        int status = 0;
        waitpid(pid_, &status, 0);
        exited_ = true;
        std::string rest;
        char buf[4096];
        for (ssize_t n; (n = read(out_, buf, sizeof(buf))) > 0;) output.append(buf, static_cast<size_t>(n));
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    void signal(int sig) { kill(pid_, sig); }

    std::string output;

  private:
    pid_t pid_ = -1;
    int out_ = -1;
    bool exited_ = false;
};

TEST(SkiffTarget, ServesIoLogsListenersAndExitsCleanlyOnSigterm) {
    const std::string nqn = "nqn.2026-11.io.skiff:proc";
    TargetProcess p({"--listen", "127.0.0.1:0", "--discovery", "127.0.0.1:0", "--nqn", nqn, "--size", "64MiB",
                     "--block-size", "4096", "--serial", "PROC42"});
    std::string io_port = p.wait_for(std::regex("listening: tcp 127\\.0\\.0\\.1:(\\d+) \\(subsystem " + nqn));
    ASSERT_FALSE(io_port.empty()) << p.output;
    std::string disc_port = p.wait_for(std::regex("listening: tcp 127\\.0\\.0\\.1:(\\d+) \\(discovery\\)"));
    ASSERT_FALSE(disc_port.empty()) << p.output;

    {
        RawTcpClient admin(static_cast<uint16_t>(std::stoi(io_port)));
        const std::string host = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
        uint16_t cntlid = admin.bring_up_admin(nqn, host);
        w::Sqe id{};
        id.opcode = nvme_admin_identify;
        id.cdw10 = NVME_IDENTIFY_CNS_NS;
        id.nsid = 1;
        std::vector<uint8_t> data;
        ASSERT_EQ(admin.command(id, &data, 4096).status, 0);
        const auto &ns = *reinterpret_cast<const nvme_id_ns *>(data.data());
        EXPECT_EQ(ns.nsze, (64ull << 20) / 4096);
        EXPECT_EQ(ns.lbaf[0].ds, 12);
        id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
        id.nsid = 0;
        ASSERT_EQ(admin.command(id, &data, 4096).status, 0);
        EXPECT_EQ(std::string(reinterpret_cast<const nvme_id_ctrl *>(data.data())->sn, 6), "PROC42");
        p.wait_for(std::regex("connect: .* controller " + std::to_string(cntlid)));
    }
    p.signal(SIGTERM);
    EXPECT_EQ(p.wait_exit(), 0) << p.output;
    EXPECT_NE(p.output.find("shutting down"), std::string::npos);
}

TEST(SkiffTarget, BusyPortIsAnErrorNamingTheAddressAndErrno) {
    TargetProcess first({"--listen", "127.0.0.1:0", "--discovery", "none"});
    std::string port = first.wait_for(std::regex("listening: tcp 127\\.0\\.0\\.1:(\\d+)"));
    ASSERT_FALSE(port.empty());
    TargetProcess second({"--listen", "127.0.0.1:" + port, "--discovery", "none"});
    EXPECT_EQ(second.wait_exit(), 1);
    EXPECT_NE(second.output.find("cannot listen on 127.0.0.1:" + port + ": Address already in use"),
              std::string::npos)
        << second.output;
    first.signal(SIGINT);
    EXPECT_EQ(first.wait_exit(), 0);
}

// --listen [::1]:PORT: an IPv6 listener, printed in brackets, that skiff's initiator reaches.
TEST(SkiffTarget, ListensOnAnIpv6AddressGivenInBrackets) {
    if (!itest::has_ipv6_loopback())
        GTEST_SKIP() << "this machine has no IPv6 loopback (::1 cannot be bound)";
    const std::string nqn = "nqn.2026-11.io.skiff:ipv6";
    TargetProcess p({"--listen", "[::1]:0", "--discovery", "[0:0::1]:0", "--nqn", nqn, "--size", "8MiB"});
    std::string io_port = p.wait_for(std::regex("listening: tcp \\[::1\\]:(\\d+) \\(subsystem " + nqn));
    ASSERT_FALSE(io_port.empty()) << p.output;
    EXPECT_FALSE(p.wait_for(std::regex("listening: tcp \\[::1\\]:(\\d+) \\(discovery\\)")).empty())
        << p.output;
    {
        nvmeof::host::ConnectOptions o;
        o.addr = "::1";
        o.port = static_cast<uint16_t>(std::stoi(io_port));
        o.subnqn = nqn;
        o.timeout = std::chrono::seconds(10);
        auto ctrl = nvmeof::host::Controller::connect(o);
        ASSERT_TRUE(ctrl.ok()) << ctrl.error().describe() << "\n" << p.output;
        std::vector<uint8_t> out(4096, 0x6C), in(4096);
        ASSERT_TRUE((*ctrl)->write(0, 1, 8, 8, out.data(), 4096).ok());
        ASSERT_TRUE((*ctrl)->read(0, 1, 8, 8, in.data(), 4096).ok());
        EXPECT_EQ(in, out);
    }
    p.signal(SIGTERM);
    EXPECT_EQ(p.wait_exit(), 0) << p.output;
}

// --zero-copy-read-min reaches the tcp transport's limits (the start-up log says which reads are
// sent from the namespace's memory), with or without a configuration file, and large reads
// return the namespace's bytes either way.
TEST(SkiffTarget, ZeroCopyReadMinOptionSetsTheTcpLimit) {
    const std::string nqn = "nqn.2026-11.io.skiff:zc";
    for (auto [value, says] : {std::pair<std::string, std::string>{"0", "tcp reads always copied"},
                               {"64KiB", "tcp reads from 64KiB sent from RAM namespaces' memory"}}) {
        TargetProcess p({"--listen", "127.0.0.1:0", "--discovery", "none", "--nqn", nqn, "--size", "8MiB",
                         "--zero-copy-read-min", value});
        std::string port = p.wait_for(std::regex("listening: tcp 127\\.0\\.0\\.1:(\\d+)"));
        ASSERT_FALSE(port.empty()) << p.output;
        EXPECT_FALSE(p.wait_for(std::regex("limits: .*(" + says + ")")).empty()) << p.output;
        RawTcpClient admin(static_cast<uint16_t>(std::stoi(port))),
            io(static_cast<uint16_t>(std::stoi(port)));
        const std::string host = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555566";
        uint16_t cntlid = admin.bring_up_admin(nqn, host);
        io.icreq();
        ASSERT_EQ(io.fabrics_connect(1, cntlid, nqn, host, 31).status, 0);
        std::vector<uint8_t> pattern(128 * 1024);
        for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = uint8_t(i * 7 + i / 512);
        w::Sqe wr{}, rd{};
        wr.opcode = nvme_cmd_write;
        rd.opcode = nvme_cmd_read;
        wr.nsid = rd.nsid = 1;
        wr.cdw12 = rd.cdw12 = uint32_t(pattern.size() / 512 - 1);
        ASSERT_EQ(io.command(wr, nullptr, 0, pattern.data(), uint32_t(pattern.size()), false).status, 0);
        std::vector<uint8_t> got;
        ASSERT_EQ(io.command(rd, &got, uint32_t(pattern.size())).status, 0);
        EXPECT_EQ(got, pattern);
        p.signal(SIGTERM);
        EXPECT_EQ(p.wait_exit(), 0) << p.output;
    }
}

TEST(SkiffTarget, BadArgumentsSayWhatWouldBeRight) {
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    for (const Case &c : std::vector<Case>{
             {{"--transport", "udp"}, "unknown; use tcp or rdma"},
             // No RDMA device owns this address (TEST-NET-3), with or without RDMA on the machine.
             {{"--transport", "rdma", "--listen", "203.0.113.9:4420", "--discovery", "none"},
              "rdma listener 203.0.113.9:4420: no RDMA device"},
             {{"--size", "3 bananas"}, "such as 512MiB or 1GiB"},
             {{"--block-size", "1000"}, "use 512 or 4096"},
             {{"--backend", "disk"}, "use ram, null, aio or hostmem"},
             {{"--listen", "localhost4420"}, "expected ADDR:PORT"},
             {{"--listen", "::1:4420"},
              "\"::1:4420\": an IPv6 address with a port needs brackets, such as [::1]:4420"},
             {{"--listen", "[::1::2]:4420"}, "\"::1::2\" is not an IPv4 or IPv6 address"},
             {{"--discovery", "[::1]"}, "--discovery \"[::1]\": no port"},
             {{"--allow-host", "bob"}, "does not start with \"nqn.yyyy-mm.\""},
             {{"--datapath", "gpu"}, "--datapath \"gpu\": unknown; use poll or dpa"},
             {{"--datapath", "dpa", "--dpa-eus", "0"}, "--dpa-eus 0: use 1..64"},
             {{"--datapath", "dpa", "--transport", "rdma", "--rdma-srq-depth", "64"},
              "--datapath dpa and --rdma-srq-depth exclude each other"},
             {{"--datapath", "dpa", "--backend", "aio", "--path", "/tmp/x"},
              "--datapath dpa serves ram and null backends only"},
             {{"--zero-copy-read-min", "1KiB"},
              "--zero-copy-read-min \"1KiB\": use 0 (always copy) or a size of 4KiB..8MiB"},
             {{"--zero-copy-read-min", "lots"}, "--zero-copy-read-min \"lots\": use 0"},
             {{"--metrics", "localhost:9860"}, "--metrics \"localhost:9860\": expected ADDR:PORT"},
             {{"--metrics", "127.0.0.1:0"},
              "--metrics \"127.0.0.1:0\": expected ADDR:PORT with a port of 1..65535"},
         }) {
        TargetProcess p(c.args);
        EXPECT_EQ(p.wait_exit(), 1) << c.args[0];
        EXPECT_NE(p.output.find(c.says), std::string::npos) << p.output;
    }
}

} // namespace
} // namespace skiff::test
