// Data through skiff-target: write, read back, compare, at the sizes that take different paths
// (in-capsule, R2T + H2CData, several C2HData PDUs, MDTS), with and without digests, and on
// several I/O queues at once.
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <thread>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

struct DigestCase {
    bool header;
    bool data;
};

void PrintTo(const DigestCase &c, std::ostream *os) {
    *os << "hdgst=" << c.header << " ddgst=" << c.data;
}

std::string digest_name(const testing::TestParamInfo<DigestCase> &info) {
    return std::string(info.param.header ? "Hdgst" : "NoHdgst") + (info.param.data ? "Ddgst" : "NoDdgst");
}

} // namespace

class integration_io : public TargetTest, public testing::WithParamInterface<DigestCase> {};

TEST_P(integration_io, WriteThenReadBackAtEverySize) {
    start_target();
    ConnectOptions o = options();
    o.header_digest = GetParam().header;
    o.data_digest = GetParam().data;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    EXPECT_EQ(ctrl->io_queue(0).params().header_digest, GetParam().header);
    EXPECT_EQ(ctrl->io_queue(0).params().data_digest, GetParam().data);

    const uint32_t mdts = ctrl->max_transfer_bytes();
    ASSERT_GE(mdts, 128u * 1024) << "MDTS must allow at least 128 KiB";
    uint64_t lba = 0;
    for (uint32_t bytes : {512u, 4096u, 128u * 1024, mdts}) {
        SCOPED_TRACE("transfer of " + std::to_string(bytes) + " bytes at LBA " + std::to_string(lba));
        const uint32_t nlb = bytes / kBlock;
        const std::vector<uint8_t> data = pattern(bytes, bytes);
        ASSERT_OK(ctrl->write(0, 1, lba, nlb, data.data(), bytes));
        std::vector<uint8_t> back(bytes, 0xEE);
        ASSERT_OK(ctrl->read(0, 1, lba, nlb, back.data(), bytes));
        EXPECT_TRUE(back == data) << "read-back differs from what was written";
        lba += nlb;
    }
    // Both write paths were taken: small data in the capsule, large data after R2Ts.
    const QueueCounters &n = ctrl->io_queue(0).counters();
    EXPECT_GT(n.in_capsule_writes, 0u);
    EXPECT_GT(n.r2ts, 0u);
    EXPECT_GE(n.h2c_pdus, n.r2ts);
}

INSTANTIATE_TEST_SUITE_P(Digests, integration_io,
                         testing::Values(DigestCase{false, false}, DigestCase{true, false},
                                         DigestCase{false, true}, DigestCase{true, true}),
                         digest_name);

using integration_io_commands = TargetTest;

TEST_F(integration_io_commands, WriteZeroesDeallocateAndFlush) {
    start_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    const std::vector<uint8_t> data = pattern(8 * kBlock, 5);
    std::vector<uint8_t> back(data.size());

    ASSERT_OK(ctrl->write(0, 1, 100, 8, data.data(), static_cast<uint32_t>(data.size())));
    ASSERT_OK(ctrl->write_zeroes(0, 1, 102, 2));
    ASSERT_OK(ctrl->read(0, 1, 100, 8, back.data(), static_cast<uint32_t>(back.size())));
    std::vector<uint8_t> expect = data;
    std::fill(expect.begin() + 2 * kBlock, expect.begin() + 4 * kBlock, 0);
    EXPECT_TRUE(back == expect) << "blocks 102-103 zeroed, the others untouched";

    nvme_dsm_range range{};
    range.nlb = 8;
    range.slba = 100;
    ASSERT_OK(ctrl->deallocate(0, 1, {range}));
    ASSERT_OK(ctrl->flush(0, 1));
}

TEST_F(integration_io_commands, ReadsWithSqFlowControlDisabled) {
    // With SQ flow control off the target may finish a read with C2HData SUCCESS instead of a
    // response capsule; either way the data and the completion must arrive.
    start_target();
    ConnectOptions o = options();
    o.disable_sq_flow_control = true;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    for (uint32_t bytes : {4096u, 128u * 1024}) {
        const std::vector<uint8_t> data = pattern(bytes, bytes + 1);
        std::vector<uint8_t> back(bytes);
        ASSERT_OK(ctrl->write(0, 1, 1000, bytes / kBlock, data.data(), bytes));
        for (int i = 0; i < 4; ++i) {
            std::fill(back.begin(), back.end(), 0);
            ASSERT_OK(ctrl->read(0, 1, 1000, bytes / kBlock, back.data(), bytes));
            EXPECT_TRUE(back == data) << bytes << "-byte read " << i;
        }
    }
    // skiff-target takes the shortcut: the SUCCESS path of the initiator is exercised for real.
    EXPECT_GT(ctrl->io_queue(0).counters().c2h_success, 0u);
}

TEST_F(integration_io_commands, ReadsHonourTheHostPduDataAlignment) {
    // HPDA 7: the target must start C2H data at a multiple of 32 bytes (padding after the header).
    start_target();
    ConnectOptions o = options();
    o.hpda = 7;
    o.header_digest = true;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    for (uint32_t bytes : {512u, 128u * 1024}) {
        const std::vector<uint8_t> data = pattern(bytes, bytes + 7);
        std::vector<uint8_t> back(bytes);
        ASSERT_OK(ctrl->write(0, 1, 2000, bytes / kBlock, data.data(), bytes));
        ASSERT_OK(ctrl->read(0, 1, 2000, bytes / kBlock, back.data(), bytes));
        EXPECT_TRUE(back == data) << bytes << "-byte read-back";
    }
    const QueueCounters &n = ctrl->io_queue(0).counters();
    EXPECT_GT(n.c2h_pdus, 0u);
    EXPECT_EQ(n.c2h_misaligned, 0u) << "C2HData PDO must be a multiple of (HPDA + 1) * 4 = 32";
}

TEST_F(integration_io_commands, FourQueuesWithManyCommandsInFlight) {
    start_target();
    ConnectOptions o = options();
    o.io_queues = 4;
    o.io_queue_size = 32;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);
    ASSERT_EQ(ctrl->io_queue_count(), 4u);

    // Each queue owns a disjoint LBA region and one thread; 16 writes in flight, then 16 reads.
    constexpr uint32_t kDepth = 16, kBlocksPerIo = 8, kIoBytes = kBlocksPerIo * kBlock;
    std::vector<std::string> errors(4);
    auto run = [&](size_t qi) {
        TcpQueue &q = ctrl->io_queue(qi);
        const uint64_t base = qi * kDepth * kBlocksPerIo;
        std::vector<std::vector<uint8_t>> out(kDepth), in(kDepth, std::vector<uint8_t>(kIoBytes));
        for (uint32_t i = 0; i < kDepth; ++i) out[i] = pattern(kIoBytes, static_cast<uint32_t>(qi * 100 + i));
        for (int phase = 0; phase < 2; ++phase) {
            for (uint32_t i = 0; i < kDepth; ++i) {
                const uint64_t lba = base + i * kBlocksPerIo;
                Result<uint16_t> cid = phase == 0
                                           ? q.submit(cmd::write(1, lba, kBlocksPerIo),
                                                      DataDir::kHostToController, out[i].data(), kIoBytes, i)
                                           : q.submit(cmd::read(1, lba, kBlocksPerIo),
                                                      DataDir::kControllerToHost, in[i].data(), kIoBytes, i);
                if (!cid) return void(errors[qi] = cid.error().describe());
            }
            uint32_t done = 0;
            while (done < kDepth) {
                Result<uint32_t> n = q.poll(std::chrono::seconds(10));
                if (!n) return void(errors[qi] = n.error().describe());
                if (*n == 0) return void(errors[qi] = "no completion within 10 s");
                Completion c;
                while (q.pop_completion(c)) {
                    if (!c.nvme_ok()) return void(errors[qi] = to_status(c, "I/O").error().describe());
                    ++done;
                }
            }
        }
        for (uint32_t i = 0; i < kDepth; ++i)
            if (in[i] != out[i])
                return void(errors[qi] = "read-back of I/O " + std::to_string(i) + " differs");
    };
    std::vector<std::thread> threads;
    for (size_t qi = 0; qi < 4; ++qi) threads.emplace_back(run, qi);
    for (auto &t : threads) t.join();
    for (size_t qi = 0; qi < 4; ++qi) EXPECT_EQ(errors[qi], "") << "I/O queue " << qi + 1;
}
