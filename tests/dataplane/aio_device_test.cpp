// The aio backend on real files: I/O through a channel whose completions arrive through an
// eventfd in a poll-group-like loop (TestLoop), O_DIRECT alignment, buffered mode, and the
// errors a user sees for a bad path.
#include "../nvmeof/test_loop.hpp"
#include "skiff/dataplane/aio_device.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <gtest/gtest.h>
#include <nvme/types.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;
namespace w = nvmeof::wire;
using dataplane::AioDevice;
using dataplane::AioOptions;

const uint16_t kCompareFailed = w::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
const uint16_t kInvalidField = w::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);

// Page-aligned memory, as the transports' request buffers are.
struct AlignedBuf {
    explicit AlignedBuf(size_t n) : len(n) {
        p = static_cast<uint8_t *>(
            mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    }
    ~AlignedBuf() { munmap(p, len); }
    void fill(uint8_t seed) {
        for (size_t i = 0; i < len; ++i) p[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 9));
    }
    uint8_t *p;
    size_t len;
};

class AioDeviceTest : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/skiff-aio-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir = tmpl;
    }
    void TearDown() override {
        channels.clear();
        std::filesystem::remove_all(dir);
    }

    std::shared_ptr<AioDevice> open(AioOptions o) {
        auto dev = AioDevice::open(o);
        EXPECT_TRUE(dev.ok()) << (dev.ok() ? "" : dev.error().message);
        return dev.ok() ? *dev : nullptr;
    }
    tgt::IoChannel &channel(AioDevice &dev, uint32_t depth = 0) {
        auto ch = dev.open_channel(loop, {.max_io_bytes = 128 * 1024, .queue_depth = depth});
        EXPECT_TRUE(ch.ok()) << (ch.ok() ? "" : ch.error().message);
        channels.push_back(std::move(*ch));
        return *channels.back();
    }
    // Submits one I/O and runs the loop until it completes; returns its status.
    uint16_t run(tgt::IoChannel &ch, tgt::IoOp op, uint64_t offset, uint64_t len, void *buf) {
        struct Result {
            bool done = false;
            uint16_t status = 0xFFFF;
        } r;
        tgt::BackendIo io;
        io.op = op;
        io.offset = offset;
        io.len = len;
        io.buf = buf;
        io.owner = &r;
        io.done = [](tgt::BackendIo &io, uint16_t st) {
            auto &res = *static_cast<Result *>(io.owner);
            res.done = true;
            res.status = st;
        };
        ch.submit(io);
        for (int i = 0; i < 1000 && !r.done; ++i) loop.run_once(10);
        EXPECT_TRUE(r.done) << "no completion";
        return r.status;
    }

    std::string dir;
    TestLoop loop;
    std::vector<std::unique_ptr<tgt::IoChannel>> channels;
};

class AioBlockSizes : public AioDeviceTest, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(AioBlockSizes, WriteReadCompareFlushDeallocateWriteZeroesOnAFile) {
    const uint32_t bs = GetParam();
    auto dev = open({.path = dir + "/ns.img", .size_bytes = 8 << 20, .create = true});
    ASSERT_TRUE(dev);
    EXPECT_EQ(dev->size_bytes(), 8u << 20);
    EXPECT_EQ(bs % dev->min_block_size(), 0u)
        << "the file system's direct I/O unit is " << dev->min_block_size();
    EXPECT_EQ(dev->deallocate_mode(), tgt::DeallocateMode::kReadsZeroes); // ext4/xfs/tmpfs punch holes
    auto &ch = channel(*dev);

    AlignedBuf data(16 * bs), back(16 * bs);
    data.fill(3);
    ASSERT_EQ(run(ch, tgt::IoOp::kWrite, 4 * bs, 16 * bs, data.p), 0);
    ASSERT_EQ(run(ch, tgt::IoOp::kRead, 4 * bs, 16 * bs, back.p), 0);
    EXPECT_EQ(std::memcmp(data.p, back.p, 16 * bs), 0);
    // Compare reads the stored bytes into the channel's bounce buffer.
    EXPECT_EQ(run(ch, tgt::IoOp::kCompare, 4 * bs, 16 * bs, data.p), 0);
    data.p[bs + 3] ^= 1;
    EXPECT_EQ(run(ch, tgt::IoOp::kCompare, 4 * bs, 16 * bs, data.p), kCompareFailed);
    data.p[bs + 3] ^= 1;
    EXPECT_EQ(run(ch, tgt::IoOp::kFlush, 0, 0, nullptr), 0);

    // Write Zeroes on blocks 0..3 of the range, Deallocate on blocks 8..11: both read back zero.
    ASSERT_EQ(run(ch, tgt::IoOp::kWriteZeroes, 4 * bs, 4 * bs, nullptr), 0);
    ASSERT_EQ(run(ch, tgt::IoOp::kDeallocate, 12 * bs, 4 * bs, nullptr), 0);
    ASSERT_EQ(run(ch, tgt::IoOp::kRead, 4 * bs, 16 * bs, back.p), 0);
    for (uint32_t i = 0; i < 16 * bs; ++i) {
        bool zeroed = i < 4 * bs || (i >= 8 * bs && i < 12 * bs);
        ASSERT_EQ(back.p[i], zeroed ? 0 : data.p[i]) << "byte " << i;
    }
    EXPECT_EQ(ch.in_flight(), 0u);

    // The file holds the data (another reader, through the page cache, sees it).
    std::ifstream f(dir + "/ns.img", std::ios::binary);
    std::vector<char> raw(bs);
    f.seekg(9 * bs);
    f.read(raw.data(), bs);
    EXPECT_EQ(std::memcmp(raw.data(), data.p + 5 * bs, bs), 0);
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, AioBlockSizes, ::testing::Values(512u, 4096u));

TEST_F(AioDeviceTest, MoreIoThanTheQueueDepthWaitsInTheChannelAndAllComplete) {
    auto dev = open({.path = dir + "/ns.img", .queue_depth = 4, .size_bytes = 4 << 20, .create = true});
    ASSERT_TRUE(dev);
    auto &ch = channel(*dev);
    constexpr int kIos = 64;
    AlignedBuf buf(kIos * 4096);
    buf.fill(9);
    struct Io : tgt::BackendIo {
        uint16_t status = 0xFFFF;
    };
    std::vector<Io> ios(kIos);
    int completed = 0;
    for (int i = 0; i < kIos; ++i) {
        Io &io = ios[i];
        io.op = tgt::IoOp::kWrite;
        io.offset = static_cast<uint64_t>(i) * 4096;
        io.len = 4096;
        io.buf = buf.p + i * 4096;
        io.owner = &completed;
        io.done = [](tgt::BackendIo &b, uint16_t st) {
            static_cast<Io &>(b).status = st;
            ++*static_cast<int *>(b.owner);
        };
        ch.submit(io);
    }
    EXPECT_EQ(ch.in_flight(), static_cast<uint32_t>(kIos));
    for (int i = 0; i < 1000 && completed < kIos; ++i) loop.run_once(10);
    EXPECT_EQ(completed, kIos);
    for (const Io &io : ios) EXPECT_EQ(io.status, 0);
    AlignedBuf back(kIos * 4096);
    ASSERT_EQ(run(ch, tgt::IoOp::kRead, 0, kIos * 4096, back.p), 0);
    EXPECT_EQ(std::memcmp(buf.p, back.p, kIos * 4096), 0);
}

TEST_F(AioDeviceTest, DirectIoRefusesMisalignedOffsetsLengthsAndBuffers) {
    auto dev = open({.path = dir + "/ns.img", .size_bytes = 1 << 20, .create = true});
    ASSERT_TRUE(dev);
    auto &ch = channel(*dev);
    const uint32_t bs = dev->min_block_size();
    AlignedBuf buf(3 * bs);
    EXPECT_EQ(run(ch, tgt::IoOp::kRead, 100, bs, buf.p), kInvalidField);
    EXPECT_EQ(run(ch, tgt::IoOp::kWrite, 0, bs + 100, buf.p), kInvalidField);
    EXPECT_EQ(run(ch, tgt::IoOp::kWrite, 0, bs, buf.p + 1),
              w::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, true));
    // Past the end.
    EXPECT_EQ(run(ch, tgt::IoOp::kRead, (1 << 20) - bs, 2 * bs, buf.p),
              w::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true));
    EXPECT_EQ(run(ch, tgt::IoOp::kRead, (1 << 20) - bs, bs, buf.p), 0);
}

TEST_F(AioDeviceTest, BufferedModeTakesAnyAlignmentAndKeepsTheData) {
    const std::string path = dir + "/buffered.img";
    {
        auto dev = open({.path = path, .buffered = true, .size_bytes = 1 << 20, .create = true});
        ASSERT_TRUE(dev);
        EXPECT_EQ(dev->min_block_size(), 512u);
        auto &ch = channel(*dev);
        std::vector<uint8_t> data(1024 + 1), back(1024 + 1, 0);
        for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13);
        // An odd buffer address is fine through the page cache.
        ASSERT_EQ(run(ch, tgt::IoOp::kWrite, 512, 1024, data.data() + 1), 0);
        ASSERT_EQ(run(ch, tgt::IoOp::kRead, 512, 1024, back.data() + 1), 0);
        EXPECT_EQ(std::memcmp(data.data() + 1, back.data() + 1, 1024), 0);
        EXPECT_EQ(run(ch, tgt::IoOp::kFlush, 0, 0, nullptr), 0);
        channels.clear();
    }
    // Reopened (O_DIRECT this time, no size: the file's), the data is there.
    auto dev = open({.path = path});
    ASSERT_TRUE(dev);
    EXPECT_EQ(dev->size_bytes(), 1u << 20);
    auto &ch = channel(*dev);
    AlignedBuf back(1024);
    ASSERT_EQ(run(ch, tgt::IoOp::kRead, 512, 1024, back.p), 0);
    for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(back.p[i], static_cast<uint8_t>((i + 1) * 13)) << i;
}

TEST_F(AioDeviceTest, ACreatedFileIsExtendedButNeverShrunk) {
    const std::string path = dir + "/grow.img";
    ASSERT_TRUE(open({.path = path, .size_bytes = 1 << 20, .create = true}));
    ASSERT_TRUE(open({.path = path, .size_bytes = 2 << 20, .create = true}));
    EXPECT_EQ(std::filesystem::file_size(path), 2u << 20);
    auto smaller = open({.path = path, .size_bytes = 1 << 20, .create = true});
    ASSERT_TRUE(smaller);
    EXPECT_EQ(smaller->size_bytes(), 1u << 20); // the namespace uses the first MiB
    EXPECT_EQ(std::filesystem::file_size(path), 2u << 20);
}

// A live resize: the file is extended and the new range takes I/O through an open channel.
TEST_F(AioDeviceTest, GrowExtendsTheFileAndTheNewRangeTakesIo) {
    const std::string path = dir + "/live.img";
    auto dev = open({.path = path, .size_bytes = 1 << 20, .create = true});
    ASSERT_TRUE(dev);
    tgt::IoChannel &ch = channel(*dev);
    void *raw = nullptr;
    ASSERT_EQ(posix_memalign(&raw, 4096, 4096), 0);
    std::unique_ptr<uint8_t, decltype(&std::free)> buf(static_cast<uint8_t *>(raw), &std::free);
    std::memset(buf.get(), 0x7E, 4096);
    EXPECT_NE(run(ch, tgt::IoOp::kWrite, 1 << 20, 4096, buf.get()), 0) << "a write past the end was taken";

    ASSERT_TRUE(dev->grow(2 << 20));
    EXPECT_EQ(dev->size_bytes(), 2u << 20);
    EXPECT_EQ(std::filesystem::file_size(path), 2u << 20);
    ASSERT_EQ(run(ch, tgt::IoOp::kWrite, (2 << 20) - 4096, 4096, buf.get()), 0);
    std::memset(buf.get(), 0, 4096);
    ASSERT_EQ(run(ch, tgt::IoOp::kRead, (2 << 20) - 4096, 4096, buf.get()), 0);
    EXPECT_EQ(buf.get()[0], 0x7E);
    EXPECT_EQ(buf.get()[4095], 0x7E);

    auto smaller = dev->grow(1 << 20);
    ASSERT_FALSE(smaller);
    EXPECT_NE(smaller.error().message.find(path), std::string::npos) << smaller.error().message;
    EXPECT_EQ(std::filesystem::file_size(path), 2u << 20);
}

// The message names the path and says what is wrong.
void expect_error(const Result<std::shared_ptr<AioDevice>> &r, const std::string &path,
                  const std::string &says) {
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
}

TEST_F(AioDeviceTest, BadPathsGiveMessagesNamingThePath) {
    const std::string missing = dir + "/missing.img";
    expect_error(AioDevice::open({.path = missing}), missing, "does not exist");
    EXPECT_FALSE(std::filesystem::exists(missing)); // not created without `create`

    const std::string small = dir + "/small.img";
    std::ofstream(small) << std::string(4096, 'x');
    expect_error(AioDevice::open({.path = small, .size_bytes = 1 << 20}), small,
                 "is 4096 bytes, smaller than the requested size 1048576");

    const std::string empty = dir + "/empty.img";
    std::ofstream(empty).flush();
    expect_error(AioDevice::open({.path = empty}), empty, "too small for one");

    expect_error(AioDevice::open({.path = dir}), dir, "cannot open"); // a folder (EISDIR)
    expect_error(AioDevice::open({.path = "/dev/null"}), "/dev/null", "cannot open with O_DIRECT");
    expect_error(AioDevice::open({.path = "/dev/null", .buffered = true}), "/dev/null",
                 "neither a regular file nor a block device");
    expect_error(AioDevice::open({.path = small, .queue_depth = 0}), small, "queue depth 0");
    expect_error(AioDevice::open({.path = missing, .create = true}), missing, "needs a size");

    // Read-only: permission bits do not stop root, the immutable attribute does.
    const std::string ro = dir + "/readonly.img";
    std::ofstream(ro) << std::string(1 << 20, '\0');
    ::chmod(ro.c_str(), 0444);
    bool immutable = geteuid() == 0 && std::system(("chattr +i " + ro + " 2>/dev/null").c_str()) == 0;
    if (geteuid() != 0 || immutable) {
        expect_error(AioDevice::open({.path = ro}), ro, "needs read and write access");
    } else {
        ADD_FAILURE() << "running as root without chattr: cannot make " << ro << " read-only";
    }
    if (immutable) {
        EXPECT_EQ(std::system(("chattr -i " + ro).c_str()), 0);
    }
}

TEST_F(AioDeviceTest, AChannelNeedsALoopToReapCompletionsIn) {
    auto dev = open({.path = dir + "/ns.img", .size_bytes = 1 << 20, .create = true});
    ASSERT_TRUE(dev);
    auto ch = dev->open_channel(tgt::PollContext::inline_context(), {});
    ASSERT_FALSE(ch.ok());
    EXPECT_NE(ch.error().message.find("not driven by a poll group"), std::string::npos) << ch.error().message;
}

} // namespace
} // namespace skiff::test

namespace skiff::test {
namespace {

// A private, tiny tmpfs for the calling (single-threaded, forked) process: a user namespace
// where unprivileged ones are allowed, else a mount namespace when root. False: neither.
bool mount_tiny_tmpfs(const std::string &dir, const char *size) {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) {
        auto put = [](const char *file, const std::string &text) { std::ofstream(file) << text; };
        put("/proc/self/setgroups", "deny");
        put("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
        put("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1");
    } else if (uid != 0 || unshare(CLONE_NEWNS) != 0) {
        return false;
    }
    mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr);
    return mount("none", dir.c_str(), "tmpfs", 0, (std::string("size=") + size).c_str()) == 0;
}

// The child's side of FullFileSystemGivesCapacityExceededAndKeepsServing: exit 0 when every
// check held, 77 when no tmpfs could be mounted, else 1 with the reason on stderr.
int fill_a_tiny_file_system(const std::string &dir) {
    if (!mount_tiny_tmpfs(dir, "1M")) return 77;
    TestLoop loop;
    auto dev =
        AioDevice::open({.path = dir + "/big.img", .buffered = true, .size_bytes = 8 << 20, .create = true});
    if (!dev) return std::fprintf(stderr, "open: %s\n", dev.error().message.c_str()), 1;
    auto ch = (*dev)->open_channel(loop, {.max_io_bytes = 128 * 1024, .queue_depth = 0});
    if (!ch) return std::fprintf(stderr, "channel: %s\n", ch.error().message.c_str()), 1;
    auto run = [&](tgt::IoOp op, uint64_t off, uint64_t len, void *buf) {
        struct R {
            bool done = false;
            uint16_t st = 0xFFFF;
        } r;
        tgt::BackendIo io;
        io.op = op;
        io.offset = off;
        io.len = len;
        io.buf = buf;
        io.owner = &r;
        io.done = [](tgt::BackendIo &io, uint16_t st) { *static_cast<R *>(io.owner) = {true, st}; };
        (*ch)->submit(io);
        for (int i = 0; i < 1000 && !r.done; ++i) loop.run_once(10);
        return r.st;
    };
    std::vector<uint8_t> data(64 * 1024, 0x5A), back(64 * 1024);
    uint16_t st = 0;
    uint64_t off = 0;
    for (; off < (8u << 20) && st == 0; off += data.size())
        st = run(tgt::IoOp::kWrite, off, data.size(), data.data());
    const uint16_t want = w::Status::make(NVME_SCT_GENERIC, NVME_SC_CAP_EXCEEDED, true);
    if (st != want)
        return std::fprintf(stderr, "write at %llu: status %#x, expected %#x\n", (unsigned long long)off, st,
                            want),
               1;
    // What was written before the file system filled up still reads back.
    if (uint16_t r = run(tgt::IoOp::kRead, 0, back.size(), back.data()); r != 0 || back != data)
        return std::fprintf(stderr, "read back after ENOSPC: status %#x\n", r), 1;
    return 0;
}

TEST(AioFullFileSystem, FullFileSystemGivesCapacityExceededAndKeepsServing) {
    char tmpl[] = "/tmp/skiff-aio-full-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) _exit(fill_a_tiny_file_system(tmpl));
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    std::filesystem::remove_all(tmpl);
    ASSERT_TRUE(WIFEXITED(wstatus));
    if (WEXITSTATUS(wstatus) == 77) GTEST_SKIP() << "no tmpfs mountable here (no user or mount namespace)";
    EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "see the child's message above";
}

} // namespace
} // namespace skiff::test
