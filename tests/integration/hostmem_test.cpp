// The hostmem backend end to end, with three real parties: skiff-host (exports its memory over
// PCI and sends the descriptor as the comch client of the channel), skiff-target (--backend
// hostmem: the channel's comch server; imports the export and moves the data with DMA) and
// skiff's initiator. Bytes written through the target are checked inside skiff-host's memory,
// read straight out of the process (/proc/<pid>/mem at the address its --test-region-file gives). Killing
// skiff-host makes the namespace's I/O fail with ANA Inaccessible (SCT 3h / SC 02h, retryable) without
// hanging the target; a new skiff-host on the same channel brings the namespace back, target untouched.
#include "../core/local_attacker_process.hpp"
#include "metrics_scrape.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <nvme/types.h>

#include <atomic>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace std::chrono_literals;

namespace {

constexpr uint16_t kAnaInaccessible = wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);

// Each test runs with skiff-host's region in a memfd (the default: the target maps the pages) and
// in private anonymous memory (the target reaches it through /proc/<pid>/mem).
class integration_hostmem : public TargetTest, public ::testing::WithParamInterface<const char *> {
  protected:
    void SetUp() override {
        ++counter_;
        channel_ = "skiff-itest-host-" + std::to_string(getpid()) + "-" + std::to_string(counter_);
        region_file_ = "/tmp/" + channel_ + ".region";
    }
    void TearDown() override {
        TargetTest::TearDown();
        if (host_) {
            if (HasFailure()) std::cerr << "---- skiff-host output\n" << host_->log() << "---- end\n";
            host_->stop();
        }
        ::unlink(region_file_.c_str());
    }

    // skiff-host is ready once it wrote its region file (the export is made); it connects to the
    // target's channel by itself, whichever starts first.
    void start_host() {
        ::unlink(region_file_.c_str());
        std::string file = region_file_;
        host_ = std::make_unique<TargetProcess>("skiff-host",
                                                std::vector<std::string>{"--channel", channel_, "--size",
                                                                         "8MiB", "--memory", GetParam(),
                                                                         "--test-region-file", file},
                                                [file] { return ::access(file.c_str(), R_OK) == 0; });
        ASSERT_TRUE(host_->started()) << "skiff-host did not export\n" << host_->log();
    }
    void start_hostmem_target() {
        start_target({"--backend", "hostmem", "--hostmem-channel", channel_, "--size", "8MiB"});
    }

    // The bytes as skiff-host's own memory holds them: read from the process itself, at the
    // region's address (empty on any failure).
    std::vector<uint8_t> host_bytes(uint64_t off, size_t len) {
        std::vector<uint8_t> out;
        FILE *f = std::fopen(region_file_.c_str(), "r");
        if (f == nullptr) return out;
        int pid = 0;
        unsigned long long base = 0, length = 0;
        int got = std::fscanf(f, "%d %llu %llu", &pid, &base, &length);
        std::fclose(f);
        if (got != 3 || off > length || len > length - off) return out;
        int fd = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return out;
        out.resize(len);
        ssize_t n = ::pread(fd, out.data(), len, static_cast<off_t>(base + off));
        ::close(fd);
        if (n != static_cast<ssize_t>(len)) out.clear();
        return out;
    }

    // The NVMe status of one command (0xFFFF when the transport failed: a hang or a dropped
    // connection, which the test must never see).
    static uint16_t status_of(Controller &ctrl, const wire::Sqe &sqe, DataDir dir, void *buf, uint32_t len) {
        Result<Completion> c = ctrl.io_queue(0).execute(sqe, dir, buf, len, 10s);
        return c ? c->status() & 0xFFFE : 0xFFFF;
    }
    static uint16_t write_status(Controller &ctrl, uint64_t lba, std::vector<uint8_t> &data) {
        return status_of(ctrl, cmd::write(1, lba, static_cast<uint32_t>(data.size() / kBlock)),
                         DataDir::kHostToController, data.data(), static_cast<uint32_t>(data.size()));
    }
    static uint16_t read_status(Controller &ctrl, uint64_t lba, std::vector<uint8_t> &data) {
        return status_of(ctrl, cmd::read(1, lba, static_cast<uint32_t>(data.size() / kBlock)),
                         DataDir::kControllerToHost, data.data(), static_cast<uint32_t>(data.size()));
    }

    // Reads until the namespace answers (the target imports the export in the background); every
    // failure on the way must be ANA Inaccessible. Bounded by attempts.
    void wait_accessible(Controller &ctrl) {
        std::vector<uint8_t> probe(kBlock);
        for (int i = 0; i < 400; ++i) {
            uint16_t st = read_status(ctrl, 0, probe);
            if (st == 0) return;
            ASSERT_EQ(st, kAnaInaccessible) << describe_status(st);
            std::this_thread::sleep_for(25ms);
        }
        FAIL() << "the hostmem namespace never became accessible";
    }

    // The ANA state of group 1 (namespace 1) from log page 0Ch.
    uint8_t ana_state(Controller &ctrl) {
        std::vector<uint8_t> page(4096);
        if (!ctrl.get_log_page(NVME_LOG_LID_ANA, 0, page.data(), static_cast<uint32_t>(page.size())).ok())
            return 0;
        auto *log = reinterpret_cast<nvme_ana_log *>(page.data());
        if (log->ngrps != 1 || log->descs[0].grpid != 1 || log->descs[0].nnsids != 1) return 0;
        return log->descs[0].state;
    }

    void write_read_verify(Controller &ctrl, uint64_t lba, size_t bytes, uint32_t seed) {
        std::vector<uint8_t> data = pattern(bytes, seed);
        std::vector<uint8_t> sent = data;
        ASSERT_EQ(write_status(ctrl, lba, sent), 0);
        std::vector<uint8_t> back(bytes, 0xEE);
        ASSERT_EQ(read_status(ctrl, lba, back), 0);
        EXPECT_TRUE(back == data) << "read-back differs from what was written";
        std::vector<uint8_t> in_host = host_bytes(lba * kBlock, bytes);
        ASSERT_EQ(in_host.size(), bytes) << "cannot read skiff-host's memory";
        EXPECT_TRUE(in_host == data) << "skiff-host's memory does not hold the written bytes";
    }

    static inline int counter_ = 0;
    std::string channel_;
    std::string region_file_;
    std::unique_ptr<TargetProcess> host_;
};

} // namespace

TEST_P(integration_hostmem, WritesLandInHostMemoryAndReadBack) {
    start_host();
    start_hostmem_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);

    // Identify reports ANA: CMIC bit 3, one group per namespace.
    Result<nvme_id_ctrl> id = ctrl->identify_controller();
    ASSERT_OK(id);
    EXPECT_TRUE(id->cmic & NVME_CTRL_CMIC_MULTI_ANA_REPORTING);
    EXPECT_TRUE(id->oaes & NVME_CTRL_OAES_ANA);
    EXPECT_GE(id->nanagrpid, 1u);
    Result<nvme_id_ns> ns = ctrl->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->anagrpid, 1u);
    EXPECT_EQ(ns->nsze, (8u << 20) / kBlock);
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_OPTIMIZED);

    write_read_verify(*ctrl, 16, 4096, 1);                // in-capsule
    write_read_verify(*ctrl, 100, 128 * 1024, 2);         // R2T + H2C, several C2H
    write_read_verify(*ctrl, 16384 - 256, 128 * 1024, 3); // the region's end
    // Bytes the target did not write keep skiff-host's zeroes.
    std::vector<uint8_t> untouched = host_bytes(15 * kBlock, kBlock);
    ASSERT_EQ(untouched.size(), kBlock);
    EXPECT_TRUE(std::all_of(untouched.begin(), untouched.end(), [](uint8_t b) { return b == 0; }));

    // Write Zeroes reaches host memory too.
    ASSERT_OK(ctrl->write_zeroes(0, 1, 16, 8));
    std::vector<uint8_t> zeroed = host_bytes(16 * kBlock, 8 * kBlock);
    ASSERT_EQ(zeroed.size(), 8u * kBlock);
    EXPECT_TRUE(std::all_of(zeroed.begin(), zeroed.end(), [](uint8_t b) { return b == 0; }));
}

// The poll group's DMA counters (skiff_poll_group_dma_tasks_total / _bytes_total) count exactly
// the bytes the I/O moved between the host's memory and the queues' buffers: a write and a read
// of 128 KiB move 256 KiB in at least two tasks (the channel may cut an I/O in chunks).
TEST_P(integration_hostmem, PollGroupDmaMetricsCountTheBytesMoved) {
    start_host();
    const uint16_t metrics_port = free_port();
    start_target({"--backend", "hostmem", "--hostmem-channel", channel_, "--size", "8MiB", "--metrics",
                  "127.0.0.1:" + std::to_string(metrics_port)});
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);

    auto dma = [&](const char *name) {
        std::string error;
        std::optional<std::string> body = scrape_metrics(metrics_port, &error);
        EXPECT_TRUE(body.has_value()) << error;
        const Samples s = parse_samples(body.value_or(""));
        EXPECT_TRUE(sample_value(s, name, {{"group", "0"}}).has_value()) << name << " not in the scrape";
        return uint64_t(sample_sum(s, name));
    };
    const uint64_t tasks0 = dma("skiff_poll_group_dma_tasks_total");
    const uint64_t bytes0 = dma("skiff_poll_group_dma_bytes_total");
    EXPECT_GE(tasks0, 1u) << "the probe read that found the namespace accessible moved its block";
    write_read_verify(*ctrl, 100, 128 * 1024, 4);
    EXPECT_EQ(dma("skiff_poll_group_dma_bytes_total") - bytes0, 256u * 1024);
    EXPECT_GE(dma("skiff_poll_group_dma_tasks_total") - tasks0, 2u);
}

TEST_P(integration_hostmem, HostLossIsAnaInaccessibleAndRecoversWithoutRestartingTheTarget) {
    start_host();
    start_hostmem_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);
    write_read_verify(*ctrl, 0, 64 * 1024, 7);

    // I/O runs while skiff-host is killed: every command completes, with success before the
    // loss and ANA Inaccessible after it; none hangs, none gets another status.
    std::atomic<bool> host_killed{false};
    std::atomic<int> ok_count{0}, inaccessible_count{0}, other_count{0};
    uint16_t other_status = 0;
    std::thread io([&] {
        std::vector<uint8_t> data = pattern(32 * 1024, 9);
        int after_kill = 0;
        for (int i = 0; i < 100000 && after_kill < 20; ++i) {
            bool killed = host_killed.load();
            uint16_t st = (i % 2) ? write_status(*ctrl, 64, data) : read_status(*ctrl, 64, data);
            if (st == 0)
                ++ok_count;
            else if (st == kAnaInaccessible)
                ++inaccessible_count;
            else {
                ++other_count;
                other_status = st;
                return;
            }
            if (killed) ++after_kill;
        }
    });
    while (ok_count.load() < 20 && other_count.load() == 0) std::this_thread::sleep_for(1ms);
    host_->kill_now();
    host_killed.store(true);
    io.join();
    EXPECT_EQ(other_count.load(), 0) << "unexpected status " << describe_status(other_status);
    EXPECT_GT(ok_count.load(), 0);
    EXPECT_GT(inaccessible_count.load(), 0) << "I/O after the host died never failed";
    // Stays inaccessible while the host is away; the target is alive and reports it.
    std::vector<uint8_t> probe(kBlock);
    EXPECT_EQ(read_status(*ctrl, 0, probe), kAnaInaccessible);
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_INACCESSIBLE);
    EXPECT_TRUE(target_->running());

    // A new skiff-host on the same channel: the target re-imports on its own.
    start_host();
    wait_accessible(*ctrl);
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_OPTIMIZED);
    write_read_verify(*ctrl, 200, 64 * 1024, 11);
}

// The target restarts while skiff-host stays: skiff-host's comch client sees the server go,
// reconnects to the new one and sends its export again; what was written before the restart is
// still in the host's memory and reads back through the new target.
TEST_P(integration_hostmem, ATargetRestartGetsTheExportAgainFromTheSameHost) {
    start_host();
    start_hostmem_target();
    {
        auto ctrl = connect(options());
        ASSERT_NE(ctrl, nullptr);
        wait_accessible(*ctrl);
        write_read_verify(*ctrl, 0, 64 * 1024, 5);
    }
    EXPECT_EQ(target_->stop(), 0);
    start_hostmem_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);
    EXPECT_TRUE(host_->running()) << "skiff-host must survive a target restart";
    std::vector<uint8_t> back(64 * 1024, 0xEE);
    ASSERT_EQ(read_status(*ctrl, 0, back), 0);
    EXPECT_TRUE(back == pattern(64 * 1024, 5)) << "the bytes written before the restart are gone";
    write_read_verify(*ctrl, 300, 64 * 1024, 6);
}

TEST_P(integration_hostmem, RevocationOnSigtermIsSeenByTheTargetAndRaisesAnAnaChangeNotice) {
    start_host();
    start_hostmem_target();
    ConnectOptions o = options();
    o.auto_keep_alive = false; // the test owns the admin queue (it parks an AER on it)
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);
    // Reading the ANA log (without RAE) arms the notice; then enable it and park one AER.
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_OPTIMIZED);
    ASSERT_OK(ctrl->set_features(NVME_FEAT_FID_ASYNC_EVENT, NVME_CTRL_OAES_ANA));
    wire::Sqe aer{};
    aer.opcode = nvme_admin_async_event;
    ASSERT_OK(ctrl->admin_queue().submit(aer, DataDir::kNone, nullptr, 0, 77));
    // Nothing changed yet: the AER stays parked.
    Completion done{};
    ASSERT_TRUE(ctrl->admin_queue().poll(300ms).ok());
    ASSERT_FALSE(ctrl->admin_queue().pop_completion(done)) << "an event fired before any ANA change";

    EXPECT_EQ(host_->stop(), 0) << "skiff-host exits 0 after SIGTERM";
    std::vector<uint8_t> probe(kBlock);
    EXPECT_EQ(read_status(*ctrl, 0, probe), kAnaInaccessible);
    EXPECT_TRUE(target_->running());

    // The AER completes with Notice / ANA change / log page 0Ch.
    bool got = false;
    for (int i = 0; i < 100 && !got; ++i) {
        ASSERT_TRUE(ctrl->admin_queue().poll(100ms).ok());
        got = ctrl->admin_queue().pop_completion(done);
    }
    ASSERT_TRUE(got) << "no asynchronous event after the host revoked";
    EXPECT_EQ(done.tag, 77u);
    EXPECT_EQ(done.cqe.result & 0xFFFFFF,
              uint32_t(NVME_AER_NOTICE | (NVME_AER_NOTICE_ANA << 8) | (NVME_LOG_LID_ANA << 16)));
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_INACCESSIBLE);
}

// Many commands in flight on one queue: each becomes a DMA task on the poll group's channel and
// completes from the group's progress engine, in any order. Then Compare (the stored bytes are
// DMAed into the channel's bounce buffer) and a Write Zeroes longer than the channel's zero
// buffer (several DMA tasks one after the other).
TEST_P(integration_hostmem, ManyCommandsInFlightCompareAndLongWriteZeroes) {
    start_host();
    start_hostmem_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);
    TcpQueue &q = ctrl->io_queue(0);

    constexpr uint32_t kCommands = 32, kBlocks = 16; // 8 KiB each
    std::vector<std::vector<uint8_t>> data(kCommands), back(kCommands);
    auto run_all = [&](bool write) {
        for (uint32_t i = 0; i < kCommands; ++i) {
            auto &buf = write ? data[i] : back[i];
            wire::Sqe sqe = write ? cmd::write(1, 1000 + i * kBlocks, kBlocks)
                                  : cmd::read(1, 1000 + i * kBlocks, kBlocks);
            ASSERT_OK(q.submit(sqe, write ? DataDir::kHostToController : DataDir::kControllerToHost,
                               buf.data(), static_cast<uint32_t>(buf.size()), i, i + 1 < kCommands));
        }
        for (uint32_t got = 0; got < kCommands;) {
            Result<uint32_t> n = q.poll(10s);
            ASSERT_OK(n);
            Completion c;
            while (q.pop_completion(c)) {
                EXPECT_EQ(c.status() & 0xFFFE, 0)
                    << "command " << c.tag << ": " << describe_status(c.status());
                ++got;
            }
        }
    };
    for (uint32_t i = 0; i < kCommands; ++i) {
        data[i] = pattern(kBlocks * kBlock, 100 + i);
        back[i].assign(kBlocks * kBlock, 0xEE);
    }
    run_all(true);
    run_all(false);
    for (uint32_t i = 0; i < kCommands; ++i) {
        EXPECT_TRUE(back[i] == data[i]) << "command " << i << " read back other bytes";
        EXPECT_TRUE(host_bytes((1000 + i * kBlocks) * kBlock, kBlocks * kBlock) == data[i])
            << "command " << i << ": skiff-host's memory does not hold the written bytes";
    }

    // Compare: equal, then one byte off.
    std::vector<uint8_t> expect = data[3];
    wire::Sqe cmp = cmd::write(1, 1000 + 3 * kBlocks, kBlocks);
    cmp.opcode = nvme_cmd_compare;
    EXPECT_EQ(status_of(*ctrl, cmp, DataDir::kHostToController, expect.data(),
                        static_cast<uint32_t>(expect.size())),
              0);
    expect[4097] ^= 1;
    uint16_t st = status_of(*ctrl, cmp, DataDir::kHostToController, expect.data(),
                            static_cast<uint32_t>(expect.size()));
    EXPECT_EQ(st, wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true) & 0xFFFE)
        << describe_status(st);

    // Write Zeroes over 3 MiB (the channel's zero buffer is 1 MiB): every byte zero in the host.
    std::vector<uint8_t> ones(kBlock, 0xAB);
    ASSERT_EQ(write_status(*ctrl, 9000, ones), 0);
    ASSERT_OK(ctrl->write_zeroes(0, 1, 8192, 6144));
    std::vector<uint8_t> zeroed = host_bytes(9000 * kBlock, kBlock);
    ASSERT_EQ(zeroed.size(), kBlock);
    EXPECT_TRUE(std::all_of(zeroed.begin(), zeroed.end(), [](uint8_t b) { return b == 0; }));
}

// The local trust model (core/src/comch/README.md, "Local trust"): with the target (root) and
// skiff-host started under umask 000, a local user (nobody, a real process through setpriv) can
// neither join the control channel (so it cannot send an EXPORT that replaces skiff-host's) nor
// bind a channel name first; the namespace keeps serving skiff-host's memory.
TEST_P(integration_hostmem, AnUnprivilegedUserCannotJoinTheChannelNorSquatAName) {
    if (std::string why = skiff::test::why_no_attacker(); !why.empty()) GTEST_SKIP() << why;
    struct Umask {
        mode_t old = ::umask(0);
        ~Umask() { ::umask(old); }
    } careless;
    start_host();
    start_hostmem_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    wait_accessible(*ctrl);
    write_read_verify(*ctrl, 8, 8192, 11);

    struct stat dir {};
    ASSERT_EQ(::stat("/tmp/skiff-comch", &dir), 0);
    EXPECT_EQ(dir.st_mode & 0007, 0u) << "the channel directory is open to every user";
    {
        skiff::test::LocalAttacker nobody({"join", channel_});
        EXPECT_EQ(nobody.next_line(10000), "CANNOT_CONNECT EACCES");
    }
    {
        skiff::test::LocalAttacker nobody({"squat", channel_ + "-squat", "1"});
        EXPECT_EQ(nobody.next_line(10000), "CANNOT_BIND EACCES");
    }
    // skiff-host's export is still the one served.
    std::vector<uint8_t> back(8192);
    ASSERT_EQ(read_status(*ctrl, 8, back), 0);
    EXPECT_TRUE(back == pattern(8192, 11));
    EXPECT_EQ(ana_state(*ctrl), NVME_ANA_STATE_OPTIMIZED);
}

INSTANTIATE_TEST_SUITE_P(Memory, integration_hostmem, ::testing::Values("memfd", "anon"));
