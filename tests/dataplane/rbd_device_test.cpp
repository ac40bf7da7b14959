// The rbd backend. Without a cluster (CI): the completion hand-off from foreign threads to the
// loop (real threads, a real eventfd), and opening an image that cannot be reached fails with
// an error that names the pool/image, the ceph.conf and what went wrong, within the connect
// timeout. With the dev cluster (scripts/ceph-dev-cluster.sh start; SKIFF_CEPH_CONF=its
// ceph.conf): every operation through a channel whose librbd completions arrive through the loop,
// and the age watchdog on I/O that librbd holds; each test on a scratch image of its own.
#include "../nvmeof/test_loop.hpp"
#include "rbd_scratch_image.hpp"
#include "skiff/dataplane/rbd_completion_queue.hpp"
#include "skiff/dataplane/rbd_device.hpp"
#include "skiff/dataplane/rbd_status.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <gtest/gtest.h>
#include <nvme/types.h>
#include <poll.h>
#include <rados/librados.h>
#include <rbd/librbd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;
namespace w = nvmeof::wire;
using dataplane::rbd_io_status;
using dataplane::RbdCompletionNode;
using dataplane::RbdCompletionQueue;
using dataplane::RbdDevice;
using dataplane::RbdOptions;
using namespace std::chrono_literals;

const uint16_t kCompareFailed = w::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);

struct Record : RbdCompletionNode {
    uint32_t producer = 0;
    uint32_t seq = 0;
    std::atomic<int> seen{0};
};

// Producers on 4 threads push 20000 records each; the consumer sleeps in poll() on the eventfd
// only (as the group's epoll does) and must receive every record exactly once, each producer's
// in order. A lost wake-up shows as a poll() timeout.
TEST(RbdCompletionQueue, EveryRecordFromManyThreadsArrivesOnceInOrderThroughTheEventfd) {
    constexpr uint32_t kProducers = 4, kPerProducer = 20000;
    RbdCompletionQueue q;
    ASSERT_TRUE(q.open().ok());
    std::vector<Record> records(kProducers * kPerProducer);
    std::vector<std::thread> threads;
    for (uint32_t p = 0; p < kProducers; ++p)
        threads.emplace_back([&, p] {
            for (uint32_t i = 0; i < kPerProducer; ++i) {
                Record &r = records[p * kPerProducer + i];
                r.producer = p;
                r.seq = i;
                q.push(&r);
                if (i % 1000 == 0) std::this_thread::yield();
            }
        });
    std::vector<uint32_t> next(kProducers, 0);
    uint32_t received = 0, wakeups = 0;
    bool in_order = true;
    while (received < records.size()) {
        pollfd pfd{q.fd(), POLLIN, 0};
        int n = ::poll(&pfd, 1, 5000);
        ASSERT_EQ(n, 1) << "no wake-up with " << records.size() - received << " records outstanding";
        ++wakeups;
        for (RbdCompletionNode *node = q.take_all(); node;) {
            Record &r = *static_cast<Record *>(node);
            node = node->next_done;
            r.seen.fetch_add(1);
            in_order &= r.seq == next[r.producer];
            next[r.producer] = r.seq + 1;
            ++received;
        }
    }
    for (auto &t : threads) t.join();
    EXPECT_TRUE(in_order);
    for (const Record &r : records) ASSERT_EQ(r.seen.load(), 1);
    EXPECT_EQ(q.take_all(), nullptr);
    // Batching: far fewer wake-ups than records is the point of signalling on empty only.
    EXPECT_LE(wakeups, received);
}

TEST(RbdCompletionQueue, NothingPushedMeansNoWakeupAndAnEmptyTake) {
    RbdCompletionQueue q;
    ASSERT_TRUE(q.open().ok());
    pollfd pfd{q.fd(), POLLIN, 0};
    EXPECT_EQ(::poll(&pfd, 1, 0), 0);
    EXPECT_EQ(q.take_all(), nullptr);
    Record a, b;
    q.push(&a);
    q.push(&b);
    EXPECT_EQ(::poll(&pfd, 1, 0), 1);
    RbdCompletionNode *n = q.take_all();
    EXPECT_EQ(n, &a);
    EXPECT_EQ(n->next_done, &b);
    EXPECT_EQ(n->next_done->next_done, nullptr);
    EXPECT_EQ(::poll(&pfd, 1, 0), 0) << "the eventfd stays readable after the take";
}

// librbd's results as the commands see them: no cluster needed, these are librbd's documented
// return values (librbd.h: rbd_aio_compare_and_write fails with -EILSEQ on a miscompare).
TEST(RbdStatus, LibrbdResultsMapToTheNvmeStatusTheHostActsOn) {
    using tgt::IoOp;
    const uint16_t kAnaInaccessible = w::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
    EXPECT_EQ(rbd_io_status(IoOp::kWrite, 4096), 0);
    EXPECT_EQ(rbd_io_status(IoOp::kCompareAndWrite, 512), 0);
    EXPECT_EQ(rbd_io_status(IoOp::kCompareAndWrite, -EILSEQ), kCompareFailed);
    // -EILSEQ means a miscompare only for compare-and-write.
    EXPECT_EQ(rbd_io_status(IoOp::kWrite, -EILSEQ), w::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT));
    // The cluster, not the request: a path error the host retries elsewhere (DNR clear).
    for (int err : {ETIMEDOUT, ENOTCONN, ESHUTDOWN, ECONNREFUSED}) {
        EXPECT_EQ(rbd_io_status(IoOp::kRead, -err), kAnaInaccessible) << err;
        EXPECT_EQ(rbd_io_status(IoOp::kCompareAndWrite, -err), kAnaInaccessible) << err;
        EXPECT_TRUE(dataplane::rbd_result_unreachable(-err));
    }
    EXPECT_FALSE(dataplane::rbd_result_unreachable(-EIO));
    EXPECT_EQ(rbd_io_status(IoOp::kCompareAndWrite, -EINVAL),
              w::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true));
    EXPECT_EQ(rbd_io_status(IoOp::kWrite, -ENOSPC),
              w::Status::make(NVME_SCT_GENERIC, NVME_SC_CAP_EXCEEDED, true));
    EXPECT_EQ(rbd_io_status(IoOp::kRead, -EIO), w::Status::make(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
    EXPECT_EQ(rbd_io_status(IoOp::kFlush, -EIO), w::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT));
}

// librbd 16.x takes a compare-and-write only inside one 512-byte sector (-EINVAL otherwise,
// measured against the dev cluster); anything else stays on the gated compare-then-write path.
TEST(RbdStatus, OnlyASingleSectorGoesToLibrbdAsOneCompareAndWrite) {
    EXPECT_TRUE(RbdDevice::fits_atomic_compare_and_write(0, 512));
    EXPECT_TRUE(RbdDevice::fits_atomic_compare_and_write(8192 + 512, 512));
    EXPECT_TRUE(RbdDevice::fits_atomic_compare_and_write(256, 256));
    EXPECT_FALSE(RbdDevice::fits_atomic_compare_and_write(256, 512)) << "crosses a sector";
    EXPECT_FALSE(RbdDevice::fits_atomic_compare_and_write(0, 1024));
    EXPECT_FALSE(RbdDevice::fits_atomic_compare_and_write(0, 4096));
    EXPECT_FALSE(RbdDevice::fits_atomic_compare_and_write(0, 0));
}

class RbdOpenFailure : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-rbd-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string dir;
};

TEST_F(RbdOpenFailure, AMissingCephConfIsNamedWithThePoolAndImage) {
    RbdOptions o;
    o.pool = "tank";
    o.image = "vol7";
    o.conf_path = dir + "/nope/ceph.conf";
    auto dev = RbdDevice::open(o);
    ASSERT_FALSE(dev.ok());
    const std::string &m = dev.error().message;
    EXPECT_NE(m.find("tank/vol7"), std::string::npos) << m;
    EXPECT_NE(m.find(dir + "/nope/ceph.conf"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot read the configuration file"), std::string::npos) << m;
}

// A monitor address where nothing listens (a port bound, never listened on): the connect gives
// up after connect_timeout_s and says so; nothing hangs.
TEST_F(RbdOpenFailure, AnUnreachableMonitorFailsWithinTheConnectTimeout) {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
    socklen_t len = sizeof(a);
    ASSERT_EQ(::getsockname(s, reinterpret_cast<sockaddr *>(&a), &len), 0);
    const std::string conf = dir + "/ceph.conf";
    std::ofstream(conf) << "[global]\nmon_host = 127.0.0.1:" << ntohs(a.sin_port)
                        << "\nauth_client_required = none\nlog_file = " << dir << "/client.log\n";
    RbdOptions o;
    o.pool = "tank";
    o.image = "vol7";
    o.rados_namespace = "tenant1";
    o.conf_path = conf;
    o.client_name = "gw1";
    o.connect_timeout_s = 1;
    auto start = std::chrono::steady_clock::now();
    auto dev = RbdDevice::open(o);
    auto took = std::chrono::steady_clock::now() - start;
    ::close(s);
    ASSERT_FALSE(dev.ok());
    const std::string &m = dev.error().message;
    EXPECT_NE(m.find("tank/tenant1/vol7"), std::string::npos) << m;
    EXPECT_NE(m.find(conf), std::string::npos) << m;
    EXPECT_NE(m.find("client.gw1"), std::string::npos) << m;
    EXPECT_NE(m.find("cannot connect to the cluster"), std::string::npos) << m;
    EXPECT_LT(took, 15s) << "the connect timeout was not honoured";
}

TEST_F(RbdOpenFailure, PoolAndImageAreRequired) {
    RbdOptions o;
    o.image = "vol7";
    auto dev = RbdDevice::open(o);
    ASSERT_FALSE(dev.ok());
    EXPECT_NE(dev.error().message.find("a pool and an image are required"), std::string::npos);
}

// ---- with the dev cluster ----

struct AlignedBuf {
    explicit AlignedBuf(size_t n) : v(n) {}
    void fill(uint8_t seed) {
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 9));
    }
    uint8_t *p() { return v.data(); }
    std::vector<uint8_t> v;
};

class RbdCluster : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!have_cluster())
            GTEST_SKIP() << "no dev cluster (scripts/ceph-dev-cluster.sh start; SKIFF_CEPH_CONF)";
        RbdOptions o = options();
        image = std::make_unique<ScratchImage>(o.conf_path, o.pool, "skiff-unit-" + std::to_string(getpid()),
                                               32 << 20);
        ASSERT_TRUE(image->ok()) << "cannot create a scratch image in the dev cluster";
        o.image = image->name();
        open(o);
    }
    void TearDown() override {
        // The channel must not go while librbd still holds a slot of it (an I/O answered early).
        for (int i = 0; i < 3000 && channel && channel->in_flight() > 0; ++i) loop.run_once(10);
        if (channel) {
            EXPECT_EQ(channel->in_flight(), 0u);
        }
        channel.reset();
        dev.reset();
        image.reset();
    }
    static bool have_cluster() {
        const char *conf = std::getenv("SKIFF_CEPH_CONF");
        return conf && *conf;
    }
    static RbdOptions options() {
        RbdOptions o;
        o.pool = env("SKIFF_CEPH_POOL", "rbd");
        o.conf_path = std::getenv("SKIFF_CEPH_CONF");
        o.queue_depth = 8;
        return o;
    }
    void open(const RbdOptions &o) {
        auto d = RbdDevice::open(o);
        ASSERT_TRUE(d.ok()) << d.error().message;
        dev = *d;
        auto ch = dev->open_channel(loop, {.max_io_bytes = 128 * 1024, .queue_depth = 0});
        ASSERT_TRUE(ch.ok()) << ch.error().message;
        channel = std::move(*ch);
    }
    static std::string env(const char *name, const char *dflt) {
        const char *v = std::getenv(name);
        return v && *v ? v : dflt;
    }
    uint16_t run(tgt::IoOp op, uint64_t offset, uint64_t len, void *buf, void *write_buf = nullptr) {
        struct Result {
            bool done = false;
            uint16_t status = 0xFFFF;
        } r;
        tgt::BackendIo io;
        io.op = op;
        io.offset = offset;
        io.len = len;
        io.buf = buf;
        io.write_buf = write_buf;
        io.owner = &r;
        io.done = [](tgt::BackendIo &io, uint16_t st) {
            auto &res = *static_cast<Result *>(io.owner);
            res.done = true;
            res.status = st;
        };
        channel->submit(io);
        for (int i = 0; i < 3000 && !r.done; ++i) loop.run_once(10);
        EXPECT_TRUE(r.done) << "no completion";
        return r.status;
    }

    TestLoop loop;
    std::unique_ptr<ScratchImage> image; // declared before dev: removed after the device closed it
    std::shared_ptr<RbdDevice> dev;
    std::unique_ptr<tgt::IoChannel> channel;
};

TEST_F(RbdCluster, WriteReadCompareWriteZeroesDiscardFlush) {
    constexpr uint64_t kOff = 8 << 20, kLen = 64 * 1024;
    AlignedBuf out(kLen), in(kLen);
    out.fill(3);
    ASSERT_EQ(run(tgt::IoOp::kWrite, kOff, kLen, out.p()), 0);
    ASSERT_EQ(run(tgt::IoOp::kRead, kOff, kLen, in.p()), 0);
    EXPECT_EQ(in.v, out.v);
    EXPECT_EQ(run(tgt::IoOp::kCompare, kOff, kLen, out.p()), 0);
    in.v[100] ^= 1;
    EXPECT_EQ(run(tgt::IoOp::kCompare, kOff, kLen, in.p()), kCompareFailed);
    ASSERT_EQ(run(tgt::IoOp::kFlush, 0, 0, nullptr), 0);

    ASSERT_EQ(run(tgt::IoOp::kWriteZeroes, kOff, kLen, nullptr), 0);
    ASSERT_EQ(run(tgt::IoOp::kRead, kOff, kLen, in.p()), 0);
    EXPECT_EQ(in.v, std::vector<uint8_t>(kLen, 0));
    EXPECT_EQ(run(tgt::IoOp::kDeallocate, kOff, kLen, nullptr), 0);
    EXPECT_TRUE(dev->accessible());
}

// One rbd_aio_compare_and_write per fused pair: the write lands only when the stored bytes
// match, a miscompare is Compare Failure and writes nothing.
TEST_F(RbdCluster, CompareAndWriteIsOneLibrbdOperationAndAMiscompareWritesNothing) {
    constexpr uint64_t kOff = (12 << 20) + 1536, kLen = 512;
    ASSERT_TRUE(dev->atomic_compare_and_write(kOff, kLen));
    EXPECT_FALSE(dev->atomic_compare_and_write(kOff, 4096)) << "librbd 16 refuses more than a sector";
    AlignedBuf first(kLen), second(kLen), third(kLen), back(kLen);
    first.fill(11);
    second.fill(22);
    third.fill(33);
    ASSERT_EQ(run(tgt::IoOp::kWrite, kOff, kLen, first.p()), 0);
    EXPECT_EQ(run(tgt::IoOp::kCompareAndWrite, kOff, kLen, first.p(), second.p()), 0);
    ASSERT_EQ(run(tgt::IoOp::kRead, kOff, kLen, back.p()), 0);
    EXPECT_EQ(back.v, second.v) << "the matching pair did not write";
    // `first` no longer matches what is stored.
    EXPECT_EQ(run(tgt::IoOp::kCompareAndWrite, kOff, kLen, first.p(), third.p()), kCompareFailed);
    ASSERT_EQ(run(tgt::IoOp::kRead, kOff, kLen, back.p()), 0);
    EXPECT_EQ(back.v, second.v) << "a miscompare wrote";
    EXPECT_TRUE(dev->accessible());
}

TEST_F(RbdCluster, MoreIoThanTheQueueDepthWaitsAndAllCompleteInTheLoop) {
    constexpr int kIos = 64; // queue depth 8
    AlignedBuf buf(kIos * 4096);
    buf.fill(5);
    struct Io : tgt::BackendIo {
        uint16_t status = 0xFFFF;
    };
    std::vector<Io> ios(kIos);
    int completed = 0;
    for (int i = 0; i < kIos; ++i) {
        Io &io = ios[i];
        io.op = tgt::IoOp::kWrite;
        io.offset = (16ull << 20) + static_cast<uint64_t>(i) * 4096;
        io.len = 4096;
        io.buf = buf.p() + i * 4096;
        io.owner = &completed;
        io.done = [](tgt::BackendIo &b, uint16_t st) {
            static_cast<Io &>(b).status = st;
            ++*static_cast<int *>(b.owner);
        };
        channel->submit(io);
    }
    EXPECT_EQ(completed, 0) << "librbd completions must arrive through the loop, not inline";
    for (int i = 0; i < 3000 && completed < kIos; ++i) loop.run_once(10);
    ASSERT_EQ(completed, kIos);
    for (const Io &io : ios) EXPECT_EQ(io.status, 0);
    AlignedBuf back(kIos * 4096);
    ASSERT_EQ(run(tgt::IoOp::kRead, 16ull << 20, kIos * 4096, back.p()), 0);
    EXPECT_EQ(back.v, buf.v);
}

// librbd holding I/O for longer than op_timeout_s, for real: the image's QoS limit lets one
// operation a second through, and librbd keeps the rest queued inside it (as it does with its
// cluster gone). op_timeout_s is 1 (its lowest): the channel's age watchdog must turn the
// namespace inaccessible and, the image having exclusive-lock, answer stuck writes early.
class RbdStuckIo : public RbdCluster {
  protected:
    void SetUp() override {
        if (!have_cluster())
            GTEST_SKIP() << "no dev cluster (scripts/ceph-dev-cluster.sh start; SKIFF_CEPH_CONF)";
        RbdOptions o = options();
        image = std::make_unique<ScratchImage>(
            o.conf_path, o.pool, "skiff-stuck-io-" + std::to_string(getpid()), 16 << 20,
            std::vector<std::pair<std::string, std::string>>{{"conf_rbd_qos_iops_limit", "1"}});
        ASSERT_TRUE(image->ok()) << "cannot create a scratch image in the dev cluster";
        o.image = image->name();
        o.op_timeout_s = 1;
        open(o);
        ASSERT_TRUE(dev->exclusive_lock());
    }
    struct Io : tgt::BackendIo {
        uint16_t status = 0xFFFF;
        bool done_ = false;
    };
    void submit(Io &io, tgt::IoOp op, uint64_t offset, void *buf) {
        io.op = op;
        io.offset = offset;
        io.len = 4096;
        io.buf = buf;
        io.done = [](tgt::BackendIo &b, uint16_t st) {
            static_cast<Io &>(b).status = st;
            static_cast<Io &>(b).done_ = true;
        };
        channel->submit(io);
    }
    // Runs the loop until pred() holds (at most ~timeout).
    template <typename P>
    bool run_until(P pred, std::chrono::milliseconds timeout) {
        auto end = std::chrono::steady_clock::now() + timeout;
        while (!pred() && std::chrono::steady_clock::now() < end) loop.run_once(10);
        return pred();
    }
    const uint16_t kAnaInaccessible = w::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);
};

TEST_F(RbdStuckIo, AStuckWriteTurnsTheNamespaceInaccessibleIsAnsweredEarlyAndItRecovers) {
    constexpr int kIos = 5; // at one per second, the last ones wait in librbd for seconds
    AlignedBuf buf(kIos * 4096);
    buf.fill(9);
    std::vector<Io> ios(kIos);
    const uint64_t changes = dev->ana_changes();
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kIos; ++i)
        submit(ios[i], tgt::IoOp::kWrite, static_cast<uint64_t>(i) * 4096, buf.p() + i * 4096);
    ASSERT_TRUE(run_until([&] { return !dev->accessible(); }, 30s)) << "the watchdog never fired";
    auto tripped = std::chrono::steady_clock::now() - start;
    EXPECT_GE(tripped, 1s) << "inaccessible before any I/O was op_timeout_s old";
    // It looks every op_timeout_s / 4, so ~1.25 s; generous, as a niced test on a loaded machine
    // was seen waiting seconds for the CPU (and librbd's QoS releasing I/O late).
    EXPECT_LT(tripped, 10s) << "the watchdog looks every op_timeout_s / 4";
    EXPECT_EQ(dev->ana_changes(), changes + 1);
    // The stuck writes were answered together with the transition: ANA Inaccessible, retryable.
    int early = 0;
    for (const Io &io : ios)
        if (io.done_ && io.status == kAnaInaccessible) ++early;
    EXPECT_GE(early, 1);
    EXPECT_FALSE(w::Status::dnr(kAnaInaccessible));
    // New I/O fails at once while inaccessible.
    Io fresh;
    AlignedBuf one(4096);
    submit(fresh, tgt::IoOp::kWrite, 8 * 4096, one.p());
    EXPECT_TRUE(fresh.done_);
    EXPECT_EQ(fresh.status, kAnaInaccessible);
    // librbd returns the answered writes' slots in its own time; then the namespace is back.
    ASSERT_TRUE(run_until([&] { return dev->accessible(); }, 60s)) << "never accessible again";
    EXPECT_EQ(channel->in_flight(), 0u);
    EXPECT_EQ(dev->ana_changes(), changes + 2);
    for (const Io &io : ios) {
        EXPECT_TRUE(io.done_);
        EXPECT_TRUE(io.status == 0 || io.status == kAnaInaccessible) << io.status;
    }
}

TEST_F(RbdStuckIo, AStuckReadTurnsTheNamespaceInaccessibleButWaitsForItsBytes) {
    constexpr int kIos = 3; // librbd lets one a second through: the last waits ~2 s
    AlignedBuf buf(kIos * 4096);
    std::vector<Io> ios(kIos);
    const uint64_t changes = dev->ana_changes();
    for (int i = 0; i < kIos; ++i)
        submit(ios[i], tgt::IoOp::kRead, static_cast<uint64_t>(i) * 4096, buf.p() + i * 4096);
    ASSERT_TRUE(run_until([&] { return !dev->accessible(); }, 30s)) << "the watchdog never fired";
    // (Whether the last read is still inside librbd at this moment is a race: its completion may
    // be handled in the same loop pass. What shows it was not answered early is its status
    // below: 0, not ANA Inaccessible.)
    // (librbd's QoS was seen releasing I/O late on the loaded machine: up to 25 s.)
    ASSERT_TRUE(run_until([&] { return dev->accessible(); }, 60s)) << "never accessible again";
    EXPECT_EQ(dev->ana_changes(), changes + 2);
    for (const Io &io : ios) {
        EXPECT_TRUE(io.done_);
        EXPECT_EQ(io.status, 0) << "a Read was answered early (its buffer is librbd's until it returns)";
    }
    EXPECT_EQ(buf.v, std::vector<uint8_t>(buf.v.size(), 0)) << "a new image reads zeroes";
}

} // namespace
} // namespace skiff::test
