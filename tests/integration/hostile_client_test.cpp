// Clients that are not well-behaved NVMe hosts, against the real skiff-target process: silent
// connections and PDUs that stop half way are closed after the stall timeout, connection and
// queue limits refuse the excess cleanly, and a flood of 1,000 connections from one client leaves
// the target serving a legitimate host that keeps doing verified I/O throughout. The target's
// connection count (skiff-ctl connections) returns to its baseline afterwards.
#include "../support/build_paths.hpp"
#include "raw_client.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/pdu_framing.hpp"
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace skiff::nvmeof::wire::tcp;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

uint64_t rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
    return 0;
}

} // namespace

class integration_hostile_clients : public TargetTest {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-hostile-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        socket_ = dir_ + "/ctl.sock";
    }
    void TearDown() override {
        healthy_.reset();
        TargetTest::TearDown();
        std::filesystem::remove_all(dir_);
    }

    // The target with a management socket and `extra` options, and a legitimate host (admin
    // queue + one I/O queue: two connections, the baseline).
    void start(std::vector<std::string> extra) {
        extra.insert(extra.end(), {"--management-socket", socket_});
        start_target(extra);
        if (HasFatalFailure()) return;
        healthy_ = connect(options());
        ASSERT_NE(healthy_, nullptr);
    }

    // A write and read-back of 4 KiB on the legitimate host's connection.
    void expect_healthy() {
        const std::vector<uint8_t> data = pattern(4096, ++round_);
        std::vector<uint8_t> back(4096);
        ASSERT_OK(healthy_->write(0, 1, 64, 4096 / kBlock, data.data(), 4096));
        ASSERT_OK(healthy_->read(0, 1, 64, 4096 / kBlock, back.data(), 4096));
        EXPECT_TRUE(back == data) << "the legitimate host's data is intact";
    }

    json connections() {
        CommandOutput r =
            run_command(skiff::test::bin_dir() + "/skiff-ctl --socket " + socket_ + " connections");
        EXPECT_EQ(r.exit_code, 0) << r.output;
        json j = json::parse(r.output, nullptr, false);
        EXPECT_FALSE(j.is_discarded()) << r.output;
        return j;
    }
    uint64_t connection_count() {
        json j = connections();
        return j.is_object() ? j["connections"].get<uint64_t>() : ~0ull;
    }
    // Polls the count until it is `want` (bounded); returns the last count seen.
    uint64_t wait_connection_count(uint64_t want, std::chrono::seconds limit = 20s) {
        auto end = std::chrono::steady_clock::now() + limit;
        uint64_t n;
        while ((n = connection_count()) != want && std::chrono::steady_clock::now() < end)
            std::this_thread::sleep_for(50ms);
        return n;
    }
    bool log_has(const std::string &text) { return target_->log().find(text) != std::string::npos; }

    std::string dir_, socket_;
    std::unique_ptr<Controller> healthy_;
    uint32_t round_ = 0;
};

TEST_F(integration_hostile_clients, SilentConnectionsAndStalledPdusAreClosedAfterTheTimeout) {
    start({"--stall-timeout-ms", "500"});
    if (HasFatalFailure()) return;
    const auto t0 = std::chrono::steady_clock::now();
    RawClient silent = raw_connect(io_port_);       // never sends ICReq
    RawClient half_icreq = raw_connect(io_port_);   // stops in the middle of its ICReq
    RawClient after_icreq = raw_connect(io_port_);  // ICReq, then no Connect
    RawClient half_capsule = raw_connect(io_port_); // ICReq, then half a command capsule
    IcReq ic = make_ic_req(false, false, 0, 0);
    send_bytes(half_icreq.fd, &ic, 50);
    ASSERT_TRUE(ic_handshake(after_icreq.fd));
    ASSERT_TRUE(ic_handshake(half_capsule.fd));
    CapsuleCmd cmd{};
    cmd.ch = {kCapsuleCmd, 0, sizeof(CapsuleCmd), 0, sizeof(CapsuleCmd)};
    send_bytes(half_capsule.fd, &cmd, 30);

    for (int fd : {silent.fd, half_icreq.fd, after_icreq.fd, half_capsule.fd}) {
        EXPECT_TRUE(closed_within(fd, 5s)) << local_peer(fd) << " was not closed";
        auto waited = std::chrono::steady_clock::now() - t0;
        EXPECT_GE(waited, 400ms) << "closed before the stall timeout";
    }
    // Each named, with its address, in a warn line.
    const std::string log = target_->log();
    for (const char *what : {"sent no ICReq", "stopped in the middle of a PDU", "sent no successful Connect"})
        EXPECT_NE(log.find(what), std::string::npos) << "no log line saying \"" << what << "\"";
    EXPECT_TRUE(log_has(local_peer(silent.fd) + ": peer sent no ICReq for ")) << log;

    // A connected host idle for longer than the timeout is keep-alive's business, not the stall
    // timer's: it keeps working.
    std::this_thread::sleep_for(1200ms);
    expect_healthy();
    EXPECT_EQ(wait_connection_count(2), 2u);
}

TEST_F(integration_hostile_clients, StalledH2CDataPayloadOfAConnectedQueueIsClosed) {
    start({"--stall-timeout-ms", "500"});
    if (HasFatalFailure()) return;
    // A connected queue that starts a capsule with in-capsule data and stops half way through the
    // data: the mid-PDU rule holds after Connect too.
    QueueConfig qc;
    qc.port = io_port_;
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
    ASSERT_OK(q);
    HostIdentity id = HostIdentity::generate();
    Result<Completion> c = fabrics_connect(**q, id, kNqn, 0xFFFF, 0);
    ASSERT_OK(c);
    ASSERT_TRUE(c->nvme_ok()) << "admin Connect status " << c->status();
    uint8_t pdu[sizeof(CapsuleCmd) + 512] = {};
    auto &cap = *reinterpret_cast<CapsuleCmd *>(pdu);
    cap.ch = {kCapsuleCmd, 0, sizeof(CapsuleCmd), sizeof(CapsuleCmd), sizeof(pdu)};
    ASSERT_OK((*q)->send_raw(pdu, sizeof(CapsuleCmd) + 100));
    EXPECT_TRUE(closed_within((*q)->socket().fd(), 5s));
    EXPECT_TRUE(log_has("stopped in the middle of a PDU")) << target_->log();
    expect_healthy();
    EXPECT_EQ(wait_connection_count(2), 2u);
}

TEST_F(integration_hostile_clients, ConnectionsOverTheLimitsAreClosedAtAccept) {
    // Total 7; per address 4. The legitimate host holds 2 connections from 127.0.0.1.
    start({"--max-connections", "7", "--max-connections-per-host", "4"});
    if (HasFatalFailure()) return;
    std::vector<RawClient> other;
    for (int i = 0; i < 4; ++i) {
        other.push_back(raw_connect(io_port_, "127.0.0.2"));
        ASSERT_TRUE(ic_handshake(other.back().fd))
            << "connection " << i << " from 127.0.0.2 is within the limit";
    }
    RawClient fifth = raw_connect(io_port_, "127.0.0.2");
    EXPECT_FALSE(ic_handshake(fifth.fd)) << "a fifth connection from 127.0.0.2 is over the per-address limit";
    EXPECT_TRUE(closed_within(fifth.fd, 5s));
    EXPECT_TRUE(log_has("connection from " + local_peer(fifth.fd) +
                        " refused: this address's connection limit (max_connections_per_host) of 4 reached"))
        << target_->log();
    // 127.0.0.3 gets the seventh connection; its second is over the target's limit of 7.
    RawClient third_host = raw_connect(io_port_, "127.0.0.3");
    EXPECT_TRUE(ic_handshake(third_host.fd));
    RawClient over_total = raw_connect(io_port_, "127.0.0.3");
    EXPECT_FALSE(ic_handshake(over_total.fd)) << "over the target's limit of 7";
    json j = connections();
    EXPECT_EQ(j["connections"], 7);
    EXPECT_EQ(j["refused_connections"], 2);
    EXPECT_EQ(j["limits"]["max_connections"], 7);
    EXPECT_EQ(j["per_address"].size(), 3u) << j.dump();
    expect_healthy();
    // Room again once one goes: the counts follow closes.
    other.pop_back();
    EXPECT_EQ(wait_connection_count(6), 6u);
    RawClient again = raw_connect(io_port_, "127.0.0.3");
    EXPECT_TRUE(ic_handshake(again.fd));
    expect_healthy();
}

TEST_F(integration_hostile_clients, QueuesOverTheHostLimitGetConnectErrors) {
    start({"--max-queues-per-host", "3"});
    if (HasFatalFailure()) return;
    // One host identity: a controller with one I/O queue takes 2 of its 3 queues.
    ConnectOptions o = options();
    Result<std::unique_ptr<Controller>> first = Controller::connect(o);
    ASSERT_OK(first);
    // A second controller needs 2 more: its admin queue is the third, its I/O queue is refused.
    Result<std::unique_ptr<Controller>> second = Controller::connect(o);
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().describe().find("Connect Invalid Parameters"), std::string::npos)
        << second.error().describe();
    // A third: its admin Connect is refused (Controller Busy).
    Result<std::unique_ptr<Controller>> third = Controller::connect(o);
    ASSERT_FALSE(third.ok());
    // (the second controller's admin queue may still be closing: wait for it to go)
    EXPECT_TRUE(third.error().describe().find("Controller Busy") != std::string::npos ||
                third.error().describe().find("Connect Invalid Parameters") != std::string::npos)
        << third.error().describe();
    EXPECT_TRUE(log_has("already has 3 queue(s), the limit (max_queues_per_host)")) << target_->log();
    // Other hosts are not affected, and the first controller works.
    expect_healthy();
    std::vector<uint8_t> buf(4096);
    ASSERT_OK((*first)->read(0, 1, 0, 8, buf.data(), buf.size()));
    // Its queues given back, the host may connect again.
    first->reset();
    auto end = std::chrono::steady_clock::now() + 10s;
    Result<std::unique_ptr<Controller>> again = Controller::connect(o);
    while (!again.ok() && std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(100ms);
        again = Controller::connect(o);
    }
    ASSERT_OK(again);
}

TEST_F(integration_hostile_clients, AThousandConnectionFloodLeavesTheLegitimateHostServed) {
    constexpr int kFlood = 1000;
    // Room for 1,000 client sockets here and 1,000 accepted ones in the target (a child
    // inherits the limit).
    rlimit rl{};
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < 4096) {
        rl.rlim_cur = std::min<rlim_t>(4096, rl.rlim_max);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < 2 * kFlood + 100)
        GTEST_SKIP() << "RLIMIT_NOFILE hard limit " << rl.rlim_max << " too low";
    // A stall timeout far beyond the test's length: here the client closes its flood itself.
    start({"--stall-timeout-ms", "120000"});
    if (HasFatalFailure()) return;
    expect_healthy();
    const uint64_t baseline = connection_count();
    ASSERT_EQ(baseline, 2u);

    // The legitimate host does verified I/O all through the flood.
    std::atomic<bool> stop{false};
    std::atomic<int> rounds{0};
    std::string io_error;
    std::thread io([&] {
        std::vector<uint8_t> back(16384);
        for (uint32_t r = 1; !stop.load(); ++r) {
            const std::vector<uint8_t> data = pattern(back.size(), 1000 + r);
            const uint64_t lba = (r % 64) * 32;
            if (auto st = healthy_->write(0, 1, lba, 32, data.data(), data.size()); !st.ok()) {
                io_error = "write: " + st.error().describe();
                return;
            }
            if (auto st = healthy_->read(0, 1, lba, 32, back.data(), back.size()); !st.ok()) {
                io_error = "read: " + st.error().describe();
                return;
            }
            if (back != data) {
                io_error = "data mismatch in round " + std::to_string(r);
                return;
            }
            rounds.fetch_add(1);
        }
    });

    const uint64_t rss_before = rss_kib(target_->pid());
    std::vector<RawClient> flood;
    flood.reserve(kFlood);
    for (int i = 0; i < kFlood && !HasFailure(); ++i) flood.push_back(raw_connect(io_port_));
    ASSERT_EQ(flood.size(), size_t(kFlood));
    EXPECT_EQ(wait_connection_count(baseline + kFlood), baseline + kFlood);
    const uint64_t rss_idle = rss_kib(target_->pid());
    // The same connections after their ICReq: now each is a queue with its slots and buffers.
    int handshakes = 0;
    for (auto &c : flood) handshakes += ic_handshake(c.fd);
    EXPECT_EQ(handshakes, kFlood);
    const uint64_t rss_queues = rss_kib(target_->pid());
    const double idle_per_conn = double(rss_idle - std::min(rss_idle, rss_before)) / kFlood;
    const double queue_per_conn = double(rss_queues - std::min(rss_queues, rss_before)) / kFlood;
    std::cout << "target RSS: " << rss_before << " KiB before, " << rss_idle << " KiB with " << kFlood
              << " idle accepted connections (" << idle_per_conn << " KiB each), " << rss_queues
              << " KiB after their ICReq (" << queue_per_conn << " KiB each)\n";
    RecordProperty("rss_kib_before", std::to_string(rss_before));
    RecordProperty("rss_kib_1000_idle", std::to_string(rss_idle));
    RecordProperty("rss_kib_1000_after_icreq", std::to_string(rss_queues));
    // Before ICReq a connection is little more than its socket (the queue pair object, its
    // poll group entry): far below the 32 KiB staging buffer alone.
    EXPECT_LT(idle_per_conn, 16.0) << "KiB of target RSS per idle accepted connection";

    const int rounds_during = rounds.load();
    flood.clear(); // the flood goes away
    EXPECT_EQ(wait_connection_count(baseline), baseline) << "the target's count returns to its baseline";
    stop.store(true);
    io.join();
    EXPECT_EQ(io_error, "") << "the legitimate host's I/O failed during the flood";
    EXPECT_GT(rounds_during, 0) << "the legitimate host did I/O during the flood";
    expect_healthy();
}
