// NVMe/TCP transport over a real loopback socket: raw PDUs in, PDUs out.
#include "raw_tcp_client.hpp"
#include "target_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <map>
#include <numeric>
#include <thread>

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;

// Connects an I/O queue (qid 1) of controller cntlid on a new client.
void bring_up_io(RawTcpClient &io, uint16_t cntlid, uint8_t dgst = 0) {
    io.icreq(dgst);
    auto cqe = io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 127);
    ASSERT_EQ(cqe.status, 0);
}

w::Sqe rw(uint8_t opcode, uint64_t slba, uint32_t nlb) {
    w::Sqe s{};
    s.opcode = opcode;
    s.nsid = 1;
    s.cdw10 = static_cast<uint32_t>(slba);
    s.cdw11 = static_cast<uint32_t>(slba >> 32);
    s.cdw12 = nlb - 1;
    return s;
}

// A C2HTermReq with this FES must arrive, then the target closes the connection. Returns the
// offending header bytes the target echoed back.
std::vector<uint8_t> expect_term_req(RawTcpClient &c, uint16_t fes,
                                     std::optional<uint32_t> fei = std::nullopt) {
    auto pdu = c.recv_pdu();
    EXPECT_TRUE(pdu.has_value()) << "connection closed without a C2HTermReq";
    if (!pdu) return {};
    EXPECT_EQ(pdu->ch.type, wt::kC2HTermReq);
    const auto &term = pdu->as<wt::TermReq>();
    // Copies: EXPECT_EQ binds references, and the packed TermReq's fei sits at offset 10, where a
    // uint32_t reference would be misaligned.
    const uint16_t got_fes = term.fes;
    const uint32_t got_fei = term.fei;
    EXPECT_EQ(got_fes, fes);
    if (fei) {
        EXPECT_EQ(got_fei, *fei);
    }
    EXPECT_GE(pdu->ch.plen, 24u);
    EXPECT_LE(pdu->ch.plen, 24u + 128u);
    EXPECT_TRUE(c.closed_by_peer());
    return {pdu->bytes.begin() + 24, pdu->bytes.end()};
}

TEST(TcpTransport, IcRespAdvertisesLimitsAndEchoesDigests) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    auto resp = c.icreq(wt::kDgstHeader | wt::kDgstData, 3);
    EXPECT_EQ(resp.ch.hlen, 128);
    EXPECT_EQ(resp.ch.plen, 128u);
    EXPECT_EQ(resp.pfv, 0);
    EXPECT_EQ(resp.cpda, 0);
    EXPECT_EQ(resp.dgst, wt::kDgstHeader | wt::kDgstData);
    EXPECT_EQ(resp.maxh2cdata, 128u * 1024u);
    EXPECT_EQ(resp.maxh2cdata % 4, 0u);

    RawTcpClient plain(t.io_port);
    EXPECT_EQ(plain.icreq(0).dgst, 0);
}

TEST(TcpTransport, WriteThenReadBackInCapsuleAndR2TWithDigests) {
    LiveTarget t;
    for (uint8_t dgst : {0, wt::kDgstHeader | wt::kDgstData}) {
        RawTcpClient admin(t.io_port);
        admin.icreq(dgst);
        auto cqe = admin.fabrics_connect(0, 0xFFFF, kSubNqn, kHostNqn);
        ASSERT_EQ(cqe.status, 0);
        uint16_t cntlid = static_cast<uint16_t>(cqe.result);
        ASSERT_EQ(admin.property(true, w::kPropCc, 1).status, 0);
        RawTcpClient io(t.io_port);
        bring_up_io(io, cntlid, dgst);

        std::vector<uint8_t> small(4096), big(64 * 1024);
        std::iota(small.begin(), small.end(), uint8_t(dgst));
        std::iota(big.begin(), big.end(), uint8_t(dgst + 7));
        // 4 KiB goes in-capsule; 64 KiB needs R2T / H2CData.
        ASSERT_EQ(io.command(rw(nvme_cmd_write, 8, 8), nullptr, 0, small.data(), 4096).status, 0);
        ASSERT_EQ(io.command(rw(nvme_cmd_write, 100, 128), nullptr, 0, big.data(), 65536, false).status, 0);
        EXPECT_EQ(io.last_r2t.r2tl, 65536u);
        EXPECT_EQ(io.last_r2t.r2to, 0u);

        std::vector<uint8_t> got;
        ASSERT_EQ(io.command(rw(nvme_cmd_read, 8, 8), &got, 4096).status, 0);
        EXPECT_EQ(got, small);
        got.clear();
        ASSERT_EQ(io.command(rw(nvme_cmd_read, 100, 128), &got, 65536).status, 0);
        EXPECT_EQ(got, big);
    }
}

TEST(TcpTransport, C2HDataHonoursHostPduAlignment) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    admin.icreq(0, 7); // HPDA 7: data offsets aligned to 32 bytes
    ASSERT_EQ(admin.fabrics_connect(0, 0xFFFF, kSubNqn, kHostNqn).status, 0);
    ASSERT_EQ(admin.property(true, w::kPropCc, 1).status, 0);
    w::Sqe id{};
    id.opcode = nvme_admin_identify;
    id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
    std::vector<uint8_t> data;
    ASSERT_EQ(admin.command(id, &data, 4096).status, 0);
    EXPECT_EQ(admin.last_c2h_pdo % 32, 0u);
    EXPECT_GE(admin.last_c2h_pdo, 24u);
    EXPECT_EQ(data.size(), 4096u);
}

TEST(TcpTransport, WrongPfvGetsUnsupportedParameter) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    wt::IcReq req{};
    req.ch = {wt::kIcReq, 0, 128, 0, 128};
    req.pfv = 1;
    c.send_raw(&req, sizeof(req));
    auto echoed = expect_term_req(c, wt::kFesUnsupportedParameter, offsetof(wt::IcReq, pfv));
    ASSERT_EQ(echoed.size(), 128u); // the whole ICReq
    EXPECT_EQ(std::memcmp(echoed.data(), &req, 128), 0);
}

TEST(TcpTransport, BadHlenGetsInvalidHeaderFieldPointingAtHlen) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    wt::IcReq req{};
    req.ch = {wt::kIcReq, 0, 100, 0, 128};
    c.send_raw(&req, sizeof(req));
    auto echoed = expect_term_req(c, wt::kFesInvalidHeaderField, offsetof(wt::CommonHeader, hlen));
    // The echo is the offending header as far as it was read: the 8-byte common header.
    ASSERT_EQ(echoed.size(), 8u);
    EXPECT_EQ(std::memcmp(echoed.data(), &req.ch, 8), 0);
}

TEST(TcpTransport, UnknownPduTypeGetsInvalidHeaderField) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    c.icreq();
    wt::CommonHeader ch{0x0B, 0, 24, 0, 24};
    uint8_t pdu[24] = {};
    std::memcpy(pdu, &ch, sizeof(ch));
    c.send_raw(pdu, sizeof(pdu));
    expect_term_req(c, wt::kFesInvalidHeaderField, 0);
}

TEST(TcpTransport, CapsuleBeforeIcReqIsASequenceError) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    w::Sqe sqe{};
    c.send_command(sqe);
    expect_term_req(c, wt::kFesPduSequenceError);
}

TEST(TcpTransport, BadHeaderDigestGetsHeaderDigestError) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    c.icreq(wt::kDgstHeader);
    uint8_t pdu[76] = {};
    auto &cap = *reinterpret_cast<wt::CapsuleCmd *>(pdu);
    cap.ch = {wt::kCapsuleCmd, wt::kFlagHdgst, 72, 0, 76};
    cap.sqe.opcode = w::kFabricsOpcode;
    uint32_t wrong = nvmeof::crc32c(pdu, 72) ^ 0x5A5A5A5A;
    std::memcpy(pdu + 72, &wrong, 4);
    c.send_raw(pdu, sizeof(pdu));
    expect_term_req(c, wt::kFesHeaderDigestError);
}

TEST(TcpTransport, OversizedInCapsuleDataGetsDataLimitExceeded) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    c.icreq();
    wt::CapsuleCmd cap{};
    uint32_t data_len = 8192 + 4096; // beyond the 8 KiB in-capsule limit
    cap.ch = {wt::kCapsuleCmd, 0, 72, 72, 72 + data_len};
    c.send_raw(&cap, sizeof(cap));
    expect_term_req(c, wt::kFesDataLimitExceeded, offsetof(wt::CommonHeader, plen));
}

// Issue 36's reproducer: limits whose in-capsule size (1 MiB) exceeds the request buffers
// (max_transfer 4 KiB), then, before any Connect, one capsule carrying a Connect whose in-capsule
// SGL covers 1 MiB of data that follows. The data must never be received into the 4 KiB buffer:
// the PDU exceeds the in-capsule size the target advertises (never more than max_transfer), so
// the answer is a C2HTermReq with Data Limit Exceeded. Before the fix the megabyte was copied
// past the buffer's end and the Connect answered Invalid Field.
TEST(TcpTransport, InCapsuleDataNeverExceedsTheRequestBuffer) {
    tgt::Limits limits;
    limits.in_capsule_data = 1u << 20;
    limits.max_transfer = 4096;
    LiveTarget t(LiveTarget::ram(1 << 20), limits);
    {
        RawTcpClient c(t.io_port);
        c.icreq();
        w::Sqe sqe{};
        auto &connect = reinterpret_cast<w::ConnectCmd &>(sqe);
        connect.opcode = w::kFabricsOpcode;
        connect.fctype = w::kFctConnect;
        connect.cid = 1;
        connect.sqsize = 31;
        std::vector<uint8_t> data(1u << 20, 0xA5);
        // The target closes the connection after the header: send from a thread that may fail.
        std::thread sender([&] {
            try {
                c.send_command(sqe, data.data(), static_cast<uint32_t>(data.size()));
            } catch (const std::exception &) {
            }
        });
        expect_term_req(c, wt::kFesDataLimitExceeded, offsetof(wt::CommonHeader, plen));
        ::shutdown(c.fd(), SHUT_RDWR);
        sender.join();
    }
    // The target keeps serving, and advertises the in-capsule size it enforces: IOCCSZ counts
    // 16-byte units of the SQE plus 4 KiB.
    RawTcpClient admin(t.io_port);
    admin.bring_up_admin(kSubNqn, kHostNqn);
    w::Sqe id{};
    id.opcode = nvme_admin_identify;
    id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
    std::vector<uint8_t> got;
    ASSERT_EQ(admin.command(id, &got, 4096).status, 0);
    ASSERT_EQ(got.size(), 4096u);
    EXPECT_EQ(reinterpret_cast<const nvme_id_ctrl *>(got.data())->ioccsz, (64u + 4096u) / 16u);
}

// NVMe/TCP's admin queue takes 8 KiB of in-capsule data whatever IOCCSZ says: a Linux host sends
// its admin Connect's 1 KiB in the capsule even when the I/O queues take none (found by the
// tcp_association fuzz harness: the Connect got a C2HTermReq). I/O queues keep IOCCSZ.
TEST(TcpTransport, AdminQueueTakesEightKiBInCapsuleWhateverIoccsz) {
    tgt::Limits limits;
    limits.in_capsule_data = 0;
    LiveTarget t(LiveTarget::ram(1 << 20), limits);
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn); // Connect data in the capsule

    RawTcpClient io(t.io_port);
    bring_up_io(io, cntlid); // its Connect data in the capsule too: the queue is not bound yet
    std::vector<uint8_t> block(512, 0x3C);
    w::Sqe write = rw(nvme_cmd_write, 0, 1);
    write.cid = io.next_cid();
    io.send_command(write, block.data(), 512);
    expect_term_req(io, wt::kFesDataLimitExceeded, offsetof(wt::CommonHeader, plen));
}

// A connection has request slots for the deeper of the admin and the I/O queues: with I/O queues
// of 4 entries, an admin queue of 32 keeps 16 commands in flight (found by tcp_association: the
// third command in flight on an 8-entry admin queue got a C2HTermReq with max_queue_depth 2).
TEST(TcpTransport, AdminQueueDeeperThanIoQueuesKeepsEveryCommand) {
    tgt::Limits limits;
    limits.max_queue_depth = 4;
    limits.max_admin_queue_depth = 32;
    LiveTarget t(LiveTarget::ram(1 << 20), limits);
    RawTcpClient admin(t.io_port);
    admin.bring_up_admin(kSubNqn, kHostNqn);
    std::vector<uint16_t> cids;
    for (int i = 0; i < 16; ++i) {
        w::Sqe id{};
        id.opcode = nvme_admin_identify;
        id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
        id.cid = admin.next_cid();
        cids.push_back(id.cid);
        admin.send_command(id, nullptr, 0, 4096);
    }
    for (uint16_t cid : cids) {
        std::vector<uint8_t> data;
        EXPECT_EQ(admin.wait_completion(cid, &data).status, 0) << "cid " << cid;
        EXPECT_EQ(data.size(), 4096u);
    }
}

TEST(TcpTransport, H2CDataOutsideTheR2TWindowGetsDataOutOfRange) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    bring_up_io(io, cntlid);
    w::Sqe s = rw(nvme_cmd_write, 0, 32); // 16 KiB via R2T
    s.cid = 77;
    io.send_command(s, nullptr, 0, 16384);
    auto r2t = io.recv_pdu();
    ASSERT_TRUE(r2t && r2t->ch.type == wt::kR2T);
    std::vector<uint8_t> data(16384 + 512);
    io.send_h2c(77, r2t->as<wt::R2T>().ttag, 0, data.data(), static_cast<uint32_t>(data.size()), true);
    expect_term_req(io, wt::kFesDataOutOfRange);
}

TEST(TcpTransport, ProtocolErrorClosesOnlyThatConnection) {
    LiveTarget t;
    RawTcpClient good(t.io_port);
    good.bring_up_admin(kSubNqn, kHostNqn);

    RawTcpClient bad(t.io_port);
    wt::IcReq req{};
    req.ch = {wt::kIcReq, 0, 128, 0, 128};
    req.pfv = 9;
    bad.send_raw(&req, sizeof(req));
    expect_term_req(bad, wt::kFesUnsupportedParameter);

    w::Sqe ka{};
    ka.opcode = nvme_admin_keep_alive;
    EXPECT_EQ(good.command(ka).status, 0);
    w::Sqe id{};
    id.opcode = nvme_admin_identify;
    id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
    std::vector<uint8_t> data;
    ASSERT_EQ(good.command(id, &data, 4096).status, 0);
    EXPECT_EQ(std::string(reinterpret_cast<const nvme_id_ctrl *>(data.data())->subnqn), kSubNqn);
}

TEST(TcpTransport, ReadUsesSuccessFlagWhenSqFlowControlIsDisabled) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    io.icreq();
    // CATTR bit 2: SQ flow control disabled.
    w::Sqe sqe{};
    auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
    c.opcode = w::kFabricsOpcode;
    c.cid = 500;
    c.fctype = w::kFctConnect;
    c.qid = 1;
    c.sqsize = 31;
    c.cattr = 0x04;
    nvmf_connect_data d{};
    std::memset(d.hostid, 0x11, 16);
    d.cntlid = cntlid;
    std::strcpy(d.subsysnqn, kSubNqn.c_str());
    std::strcpy(d.hostnqn, kHostNqn.c_str());
    io.send_command(sqe, &d, sizeof(d));
    auto resp = io.recv_pdu();
    ASSERT_TRUE(resp && resp->ch.type == wt::kCapsuleResp);
    ASSERT_EQ(resp->as<wt::CapsuleResp>().cqe.status, 0);

    w::Sqe rd = rw(nvme_cmd_read, 0, 1);
    rd.cid = 9;
    io.send_command(rd, nullptr, 0, 512);
    auto pdu = io.recv_pdu();
    ASSERT_TRUE(pdu && pdu->ch.type == wt::kC2HData);
    EXPECT_EQ(pdu->ch.flags & (wt::kFlagDataLast | wt::kFlagDataSuccess),
              wt::kFlagDataLast | wt::kFlagDataSuccess);
    // No response capsule follows: the next PDU is the answer to the next command.
    w::Sqe ka = rw(nvme_cmd_flush, 0, 1);
    ka.cid = 10;
    io.send_command(ka);
    auto next = io.recv_pdu();
    ASSERT_TRUE(next && next->ch.type == wt::kCapsuleResp);
    EXPECT_EQ(next->as<wt::CapsuleResp>().cqe.cid, 10);
}

// Large reads from a RAM namespace leave the target straight from the namespace's memory, held
// until the socket takes them (target::HeldView). In the tests below the host stops reading, so
// most of a burst of 128 KiB reads waits in the target's send queue.
constexpr uint32_t kHeldLen = 128 * 1024, kHeldBlocks = kHeldLen / 512;

// Writes `reads` chunks of 128 KiB from LBA 0, chunk r filled by byte(r, i).
template <typename Byte>
void write_chunks(RawTcpClient &io, uint32_t reads, Byte byte) {
    std::vector<uint8_t> chunk(kHeldLen);
    for (uint32_t r = 0; r < reads; ++r) {
        for (uint32_t i = 0; i < kHeldLen; ++i) chunk[i] = byte(r, i);
        ASSERT_EQ(io.command(rw(nvme_cmd_write, uint64_t(r) * kHeldBlocks, kHeldBlocks), nullptr, 0,
                             chunk.data(), kHeldLen, false)
                      .status,
                  0);
    }
}

// Sends a read of every chunk (cid 1000 + r) without reading anything back, then waits until the
// target's socket has filled up.
void send_chunk_reads(RawTcpClient &io, uint32_t reads) {
    for (uint32_t r = 0; r < reads; ++r) {
        w::Sqe rd = rw(nvme_cmd_read, uint64_t(r) * kHeldBlocks, kHeldBlocks);
        rd.cid = uint16_t(1000 + r);
        io.send_command(rd, nullptr, 0, kHeldLen);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

// A target with an admin queue and one I/O queue connected.
struct HeldReadsTarget {
    HeldReadsTarget() { bring_up_io(io, admin.bring_up_admin(kSubNqn, kHostNqn)); }
    LiveTarget t;
    RawTcpClient admin{t.io_port};
    RawTcpClient io{t.io_port};
};

struct Completions {
    std::map<uint16_t, std::vector<uint8_t>> data;
    std::map<uint16_t, uint16_t> status;
};

// Reads PDUs until `count` commands have completed: their C2H data and status by cid.
Completions collect(RawTcpClient &io, size_t count) {
    Completions c;
    while (c.status.size() < count) {
        auto pdu = io.recv_pdu();
        if (!pdu) {
            ADD_FAILURE() << "connection closed after " << c.status.size() << " completions";
            break;
        }
        if (pdu->ch.type == wt::kC2HData) {
            const auto &d = pdu->as<wt::DataPdu>();
            auto &buf = c.data[d.cccid];
            buf.resize(std::max<size_t>(buf.size(), d.datao + d.datal));
            std::memcpy(buf.data() + d.datao, pdu->bytes.data() + d.ch.pdo, d.datal);
            if (d.ch.flags & wt::kFlagDataSuccess) c.status[d.cccid] = 0;
        } else if (pdu->ch.type == wt::kCapsuleResp) {
            const auto &cqe = pdu->as<wt::CapsuleResp>().cqe;
            c.status[cqe.cid] = cqe.status;
        } else {
            ADD_FAILURE() << "unexpected PDU type " << int(pdu->ch.type);
        }
    }
    return c;
}

// Every chunk read came back whole, successful, and as byte(r, i).
template <typename Byte>
void expect_chunks(Completions &c, uint32_t reads, Byte byte) {
    for (uint32_t r = 0; r < reads; ++r) {
        const uint16_t cid = uint16_t(1000 + r);
        ASSERT_EQ(c.status[cid], 0) << "read " << r;
        ASSERT_EQ(c.data[cid].size(), kHeldLen) << "read " << r;
        uint32_t wrong = 0;
        for (uint32_t i = 0; i < kHeldLen; ++i) wrong += c.data[cid][i] != byte(r, i);
        EXPECT_EQ(wrong, 0u) << "read " << r
                             << " returned other bytes than the namespace held when it completed";
    }
}

// The host overwrites parts of two held reads: every read must still return the bytes the
// namespace held when it completed, and the writes must take effect.
TEST(TcpTransport, LargeReadsKeepTheirBytesWhenAWriteOverwritesThemBeforeTheyAreSent) {
    HeldReadsTarget h;
    RawTcpClient &io = h.io;
    constexpr uint32_t kReads = 100;
    auto pattern = [](uint32_t read, uint32_t i) { return uint8_t(read * 7 + i * 13 + 1); };
    write_chunks(io, kReads, pattern);
    send_chunk_reads(io, kReads);
    // 4 KiB in-capsule writes into the middle of read 50 and of the last read.
    const std::vector<uint8_t> overwrite(4096, 0xEE);
    const uint64_t targets[2] = {50ull * kHeldBlocks + 100, (kReads - 1ull) * kHeldBlocks + 100};
    for (int k = 0; k < 2; ++k) {
        w::Sqe wr = rw(nvme_cmd_write, targets[k], 8);
        wr.cid = uint16_t(2000 + k);
        io.send_command(wr, overwrite.data(), 4096);
    }

    Completions c = collect(io, kReads + 2);
    expect_chunks(c, kReads, pattern);
    EXPECT_EQ(c.status[2000], 0);
    EXPECT_EQ(c.status[2001], 0);
    for (uint64_t slba : targets) {
        std::vector<uint8_t> got;
        ASSERT_EQ(io.command(rw(nvme_cmd_read, slba, 8), &got, 4096).status, 0);
        EXPECT_EQ(got, overwrite);
    }
}

// The namespace is removed while its reads wait: the poll group keeps the namespace's channel,
// and with it the RAM, until the last read held from it is sent.
TEST(TcpTransport, LargeReadsWaitingToBeSentOutliveTheirNamespace) {
    HeldReadsTarget h;
    RawTcpClient &io = h.io;
    constexpr uint32_t kReads = 80;
    auto fill = [](uint32_t read, uint32_t) { return uint8_t(read + 1); };
    write_chunks(io, kReads, fill);
    send_chunk_reads(io, kReads);
    ASSERT_NE(h.t.target.find_subsystem(kSubNqn)->remove_namespace(1), nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(500)); // several sweeps of the poll group

    Completions c = collect(io, kReads);
    expect_chunks(c, kReads, fill);
}

// A namespace in memory that counts the reads it lends its memory to (read_view) and those it
// copies (read).
class ViewCountingDevice final : public tgt::SyncBlockDevice {
  public:
    explicit ViewCountingDevice(size_t size) : bytes_(size) {
        for (size_t i = 0; i < size; ++i) bytes_[i] = uint8_t(i * 31 + i / 4096);
    }
    const char *kind() const override { return "ram"; }
    uint64_t size_bytes() const override { return bytes_.size(); }
    tgt::DeallocateMode deallocate_mode() const override { return tgt::DeallocateMode::kReadsZeroes; }
    uint16_t read(uint64_t offset, void *dst, size_t len) override {
        ++copied;
        std::memcpy(dst, bytes_.data() + offset, len);
        return 0;
    }
    const uint8_t *read_view(uint64_t offset, size_t) override {
        ++lent;
        return bytes_.data() + offset;
    }
    uint16_t write(uint64_t offset, const void *src, size_t len) override {
        std::memcpy(bytes_.data() + offset, src, len);
        return 0;
    }
    uint16_t compare(uint64_t offset, const void *expected, size_t len, bool &equal) override {
        equal = std::memcmp(bytes_.data() + offset, expected, len) == 0;
        return 0;
    }
    uint16_t write_zeroes(uint64_t offset, size_t len) override {
        std::memset(bytes_.data() + offset, 0, len);
        return 0;
    }
    uint16_t deallocate(uint64_t offset, size_t len) override { return write_zeroes(offset, len); }
    uint16_t flush() override { return 0; }
    const uint8_t *at(uint64_t offset) const { return bytes_.data() + offset; }

    std::atomic<uint32_t> lent{0}, copied{0};

  private:
    std::vector<uint8_t> bytes_;
};

// Limits::tcp_zero_copy_read_min (transports[].zero_copy_read_min) decides which reads are sent
// from the namespace's memory: those of at least that size; none when it is 0.
TEST(TcpTransport, ZeroCopyReadMinDecidesWhichReadsAreSentFromTheNamespace) {
    struct Case {
        uint32_t min;
        uint32_t lent_4k, lent_32k, lent_128k;
    };
    for (const Case &c :
         {Case{0, 0, 0, 0}, Case{32 * 1024, 0, 1, 1}, Case{4096, 1, 1, 1}, Case{128 * 1024, 0, 0, 1}}) {
        SCOPED_TRACE("zero_copy_read_min " + std::to_string(c.min));
        auto dev = std::make_shared<ViewCountingDevice>(1 << 20);
        tgt::Limits limits;
        limits.tcp_zero_copy_read_min = c.min;
        LiveTarget t(dev, limits);
        RawTcpClient admin(t.io_port), io(t.io_port);
        bring_up_io(io, admin.bring_up_admin(kSubNqn, kHostNqn));
        const uint32_t lens[3] = {4096, 32 * 1024, 128 * 1024};
        const uint32_t want[3] = {c.lent_4k, c.lent_32k, c.lent_128k};
        for (int k = 0; k < 3; ++k) {
            const uint32_t lent_before = dev->lent, copied_before = dev->copied;
            const uint64_t offset = 4096ull * (k + 1);
            std::vector<uint8_t> got;
            ASSERT_EQ(io.command(rw(nvme_cmd_read, offset / 512, lens[k] / 512), &got, lens[k]).status, 0);
            ASSERT_EQ(got.size(), lens[k]);
            EXPECT_EQ(std::memcmp(got.data(), dev->at(offset), lens[k]), 0) << lens[k] << " bytes";
            EXPECT_EQ(dev->lent - lent_before, want[k]) << lens[k] << " bytes";
            EXPECT_EQ(dev->copied - copied_before, 1 - want[k]) << lens[k] << " bytes";
        }
    }
}

TEST(TcpTransport, DiscoveryListenerServesTheDiscoveryLogOnly) {
    LiveTarget t;
    RawTcpClient c(t.discovery_port);
    c.bring_up_admin(tgt::kDiscoveryNqn, kHostNqn);
    w::Sqe log{};
    log.opcode = nvme_admin_get_log_page;
    uint32_t len = 4096;
    log.cdw10 = NVME_LOG_LID_DISCOVER | ((len / 4 - 1) << 16);
    std::vector<uint8_t> data;
    ASSERT_EQ(c.command(log, &data, len).status, 0);
    const auto &hdr = *reinterpret_cast<const nvmf_discovery_log *>(data.data());
    ASSERT_EQ(hdr.numrec, 2u); // the I/O subsystem on the I/O port, and this discovery subsystem
    const auto &e = hdr.entries[0];
    EXPECT_EQ(e.subtype, NVME_NQN_NVME);
    EXPECT_EQ(std::string(e.subnqn), kSubNqn);
    EXPECT_EQ(std::string(e.trsvcid), std::to_string(t.io_port));
    EXPECT_EQ(std::string(e.traddr), "127.0.0.1");
    EXPECT_EQ(e.trtype, NVMF_TRTYPE_TCP);
    EXPECT_EQ(hdr.entries[1].subtype, NVME_NQN_CURR);

    // The I/O subsystem is not reachable through the discovery-only listener.
    RawTcpClient io(t.discovery_port);
    io.icreq();
    auto cqe = io.fabrics_connect(0, 0xFFFF, kSubNqn, kHostNqn);
    EXPECT_EQ(w::Status::sc(cqe.status), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(cqe.result, (1u << 16) | offsetof(nvmf_connect_data, subsysnqn));
}

} // namespace
} // namespace skiff::test

namespace skiff::test {
namespace {

// An admin queue plus I/O queue 1 on one target.
struct IoPair {
    explicit IoPair(LiveTarget &t, uint8_t dgst = 0) : admin(t.io_port), io(t.io_port) {
        uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
        io.icreq(dgst);
        ok = io.fabrics_connect(1, cntlid, kSubNqn, kHostNqn, 63).status == 0;
    }
    RawTcpClient admin, io;
    bool ok = false;
};

TEST(TcpTransport, BadSglsGetSglStatusesAndTheConnectionStays) {
    LiveTarget t;
    IoPair p(t);
    ASSERT_TRUE(p.ok);
    w::Sqe s = rw(nvme_cmd_read, 0, 1);
    // Keyed data block (RDMA only): SGL descriptor type invalid.
    s.cid = 21;
    s.flags = w::kPsdtSgl;
    s.dptr = {};
    s.dptr.id = w::kSglIdKeyed;
    s.dptr.length = 512;
    p.io.send_command(s, nullptr, 0, 0, true);
    auto cqe = p.io.wait_completion(21);
    EXPECT_EQ(w::Status::sc(cqe.status), NVME_SC_SGL_INVALID_TYPE);
    EXPECT_TRUE(w::Status::dnr(cqe.status));
    // A transport data block longer than MDTS: data SGL length invalid.
    s.cid = 22;
    s.dptr.id = w::kSglIdTcpTransport;
    s.dptr.length = 256 * 1024;
    p.io.send_command(s, nullptr, 0, 0, true);
    EXPECT_EQ(w::Status::sc(p.io.wait_completion(22).status), NVME_SC_SGL_INVALID_DATA);
    // In-capsule SGL whose length disagrees with the data in the capsule.
    std::vector<uint8_t> data(512, 1);
    w::Sqe wr = rw(nvme_cmd_write, 0, 1);
    wr.cid = 23;
    wr.flags = w::kPsdtSgl;
    wr.dptr = {};
    wr.dptr.id = w::kSglIdInCapsule;
    wr.dptr.length = 1024;
    p.io.send_command(wr, data.data(), 512, 0, true);
    EXPECT_EQ(w::Status::sc(p.io.wait_completion(23).status), NVME_SC_SGL_INVALID_DATA);
    // PRP instead of SGL: invalid field.
    wr.cid = 24;
    wr.flags = 0;
    wr.dptr.length = 512;
    p.io.send_command(wr, data.data(), 512, 0, true);
    EXPECT_EQ(w::Status::sc(p.io.wait_completion(24).status), NVME_SC_INVALID_FIELD);
    // The queue still works.
    std::vector<uint8_t> got;
    EXPECT_EQ(p.io.command(rw(nvme_cmd_read, 0, 1), &got, 512).status, 0);
}

TEST(TcpTransport, DataDigestMismatchFailsTheCommandWithATransientTransportError) {
    LiveTarget t;
    IoPair p(t, wt::kDgstHeader | wt::kDgstData);
    ASSERT_TRUE(p.ok);
    std::vector<uint8_t> data(1024, 0x77);
    // Build the capsule by hand with a wrong data digest.
    w::Sqe s = rw(nvme_cmd_write, 0, 2);
    s.cid = 31;
    s.flags = w::kPsdtSgl;
    s.dptr = {};
    s.dptr.id = w::kSglIdInCapsule;
    s.dptr.length = 1024;
    std::vector<uint8_t> pdu(76);
    auto &cap = *reinterpret_cast<wt::CapsuleCmd *>(pdu.data());
    cap.ch = {wt::kCapsuleCmd, wt::kFlagHdgst | wt::kFlagDdgst, 72, 76, 76 + 1024 + 4};
    cap.sqe = s;
    uint32_t hd = nvmeof::crc32c(pdu.data(), 72);
    std::memcpy(pdu.data() + 72, &hd, 4);
    pdu.insert(pdu.end(), data.begin(), data.end());
    uint32_t bad = nvmeof::crc32c(data.data(), data.size()) + 1;
    auto *b = reinterpret_cast<uint8_t *>(&bad);
    pdu.insert(pdu.end(), b, b + 4);
    p.io.send_raw(pdu.data(), pdu.size());
    auto cqe = p.io.wait_completion(31);
    EXPECT_EQ(w::Status::sct(cqe.status), NVME_SCT_GENERIC);
    EXPECT_EQ(w::Status::sc(cqe.status), 0x22); // transient transport error, retryable
    EXPECT_FALSE(w::Status::dnr(cqe.status));
    // Nothing was written.
    std::vector<uint8_t> got;
    ASSERT_EQ(p.io.command(rw(nvme_cmd_read, 0, 2), &got, 1024).status, 0);
    EXPECT_EQ(got, std::vector<uint8_t>(1024, 0));
}

TEST(TcpTransport, KeepAliveExpiryClosesEveryQueueOfTheAssociation) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    admin.icreq();
    auto cqe = admin.fabrics_connect(0, 0xFFFF, kSubNqn, kHostNqn, 31, 60000);
    ASSERT_EQ(cqe.status, 0);
    ASSERT_EQ(admin.property(true, w::kPropCc, 1).status, 0);
    RawTcpClient io(t.io_port);
    io.icreq();
    ASSERT_EQ(io.fabrics_connect(1, static_cast<uint16_t>(cqe.result), kSubNqn, kHostNqn, 31).status, 0);
    // Shorten KATO to 300 ms only now, so setting up cannot race the timer.
    w::Sqe kato{};
    kato.opcode = nvme_admin_set_features;
    kato.cdw10 = NVME_FEAT_FID_KATO;
    kato.cdw11 = 300;
    ASSERT_EQ(admin.command(kato).status, 0);
    // The host goes silent: the target ends the association and closes both connections.
    EXPECT_TRUE(admin.closed_by_peer());
    EXPECT_TRUE(io.closed_by_peer());
}

TEST(TcpTransport, DiscoveryIsServedOnTheIoListenerToo) {
    LiveTarget t;
    RawTcpClient c(t.io_port);
    c.bring_up_admin(tgt::kDiscoveryNqn, kHostNqn);
    w::Sqe log{};
    log.opcode = nvme_admin_get_log_page;
    log.cdw10 = NVME_LOG_LID_DISCOVER | ((2048 / 4 - 1) << 16);
    std::vector<uint8_t> data;
    ASSERT_EQ(c.command(log, &data, 2048).status, 0);
    const auto &hdr = *reinterpret_cast<const nvmf_discovery_log *>(data.data());
    ASSERT_GE(hdr.numrec, 1u);
    EXPECT_EQ(std::string(hdr.entries[0].subnqn), kSubNqn);
}

} // namespace
} // namespace skiff::test

namespace skiff::test {
namespace {

// While a Compare and Write elsewhere holds the namespace, a write on this connection waits
// (deferred, retried each loop iteration) and completes once the gate opens; commands that
// need no gate overtake it.
TEST(TcpTransport, IoWaitsForACompareAndWriteHeldElsewhereThenCompletes) {
    LiveTarget t;
    IoPair p(t);
    ASSERT_TRUE(p.ok);
    auto &gate = t.target.find_subsystem(kSubNqn)->find_namespace(1)->gate();
    tgt::IoGate::set_thread_lane(7); // this thread plays another poll group
    int token = 0;
    ASSERT_TRUE(gate.try_exclusive(&token)); // nothing in flight: held at once

    std::vector<uint8_t> data(512, 0x6B);
    w::Sqe wr = rw(nvme_cmd_write, 3, 1);
    wr.cid = 41;
    p.io.send_command(wr, data.data(), 512);
    w::Sqe bad = rw(nvme_cmd_read, 0, 1);
    bad.nsid = 9; // fails in parse, needs no gate
    bad.cid = 42;
    p.io.send_command(bad, nullptr, 0, 512);
    // The target handled both capsules in order; only the second could complete.
    auto first = p.io.recv_pdu();
    ASSERT_TRUE(first && first->ch.type == wt::kCapsuleResp);
    EXPECT_EQ(first->as<wt::CapsuleResp>().cqe.cid, 42);

    gate.leave_exclusive(&token);
    tgt::IoGate::set_thread_lane(0);
    auto cqe = p.io.wait_completion(41);
    EXPECT_EQ(cqe.status, 0);
    std::vector<uint8_t> got;
    ASSERT_EQ(p.io.command(rw(nvme_cmd_read, 3, 1), &got, 512).status, 0);
    EXPECT_EQ(got, data);
}

void set_cork(RawTcpClient &c, int on) {
    setsockopt(c.fd(), IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
}

// The target reads many PDUs per system call through its staging buffer and reads payloads in
// place: corked batches (24 in-capsule writes, ~100 KiB, cut anywhere by the 32 KiB staging
// buffer; then 24 reads in one segment) and a capsule dribbled one byte per segment must all
// arrive intact.
TEST(TcpTransport, ManyPdusPerReadAndPdusSplitAtEveryByte) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    bring_up_io(io, cntlid);

    constexpr int kIos = 24;
    std::vector<std::vector<uint8_t>> blocks(kIos, std::vector<uint8_t>(4096));
    set_cork(io, 1);
    for (int i = 0; i < kIos; ++i) {
        std::iota(blocks[i].begin(), blocks[i].end(), uint8_t(i * 3 + 1));
        w::Sqe s = rw(nvme_cmd_write, uint64_t(i) * 8, 8);
        s.cid = static_cast<uint16_t>(100 + i);
        io.send_command(s, blocks[i].data(), 4096);
    }
    set_cork(io, 0);
    for (int done = 0; done < kIos; ++done) {
        auto pdu = io.recv_pdu();
        ASSERT_TRUE(pdu && pdu->ch.type == wt::kCapsuleResp);
        EXPECT_EQ(pdu->as<wt::CapsuleResp>().cqe.status, 0);
    }

    set_cork(io, 1);
    for (int i = 0; i < kIos; ++i) {
        w::Sqe s = rw(nvme_cmd_read, uint64_t(i) * 8, 8);
        s.cid = static_cast<uint16_t>(200 + i);
        io.send_command(s, nullptr, 0, 4096);
    }
    set_cork(io, 0);
    std::vector<std::vector<uint8_t>> got(kIos);
    for (int done = 0; done < kIos;) {
        auto pdu = io.recv_pdu();
        ASSERT_TRUE(pdu.has_value());
        if (pdu->ch.type == wt::kC2HData) {
            const auto &d = pdu->as<wt::DataPdu>();
            ASSERT_GE(d.cccid, 200);
            ASSERT_LT(d.cccid, 200 + kIos);
            got[d.cccid - 200].assign(pdu->bytes.begin() + d.ch.pdo, pdu->bytes.begin() + d.ch.pdo + d.datal);
            continue;
        }
        ASSERT_EQ(pdu->ch.type, wt::kCapsuleResp);
        EXPECT_EQ(pdu->as<wt::CapsuleResp>().cqe.status, 0);
        ++done;
    }
    for (int i = 0; i < kIos; ++i) EXPECT_EQ(got[i], blocks[i]) << "block " << i;

    // One in-capsule write, one byte per segment.
    std::vector<uint8_t> data(512);
    std::iota(data.begin(), data.end(), uint8_t(77));
    std::vector<uint8_t> pdu(sizeof(wt::CapsuleCmd));
    auto &cap = *reinterpret_cast<wt::CapsuleCmd *>(pdu.data());
    cap.ch = {wt::kCapsuleCmd, 0, 72, 72, 72 + 512};
    cap.sqe = rw(nvme_cmd_write, 1000, 1);
    cap.sqe.cid = 300;
    cap.sqe.flags = w::kPsdtSgl;
    cap.sqe.dptr.id = w::kSglIdInCapsule;
    cap.sqe.dptr.length = 512;
    pdu.insert(pdu.end(), data.begin(), data.end());
    for (uint8_t b : pdu) io.send_raw(&b, 1);
    auto resp = io.recv_pdu();
    ASSERT_TRUE(resp && resp->ch.type == wt::kCapsuleResp);
    EXPECT_EQ(resp->as<wt::CapsuleResp>().cqe.status, 0);
    std::vector<uint8_t> back;
    ASSERT_EQ(io.command(rw(nvme_cmd_read, 1000, 1), &back, 512).status, 0);
    EXPECT_EQ(back, data);
}

uint32_t load_u32(const uint8_t *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// A burst of 128 KiB reads arrives in one segment: one receive pass of the target queues 3 MiB
// of C2HData, far more than the socket takes at once, so the send queue resumes partial sends
// (mid-header, mid-payload, mid-digest) over many sendmsg calls. Every C2HData must still carry
// exactly its command's data (one PDU, DATAO 0, DATAL 128 KiB, PLEN = PDO + DATAL + data
// digest) with correct header and data digests, and every command completes once, after its data.
TEST(TcpTransport, BurstOfLargeReadsResumesPartialSendsWithExactPdusAndDigests) {
    LiveTarget t;
    RawTcpClient admin(t.io_port);
    uint16_t cntlid = admin.bring_up_admin(kSubNqn, kHostNqn);
    RawTcpClient io(t.io_port);
    bring_up_io(io, cntlid, wt::kDgstHeader | wt::kDgstData);

    constexpr int kIos = 24;
    constexpr uint32_t kLen = 128 * 1024, kBlocks = kLen / 512;
    std::vector<uint8_t> pattern(kLen);
    for (uint32_t i = 0; i < kLen; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + i / 4096);
    for (int i = 0; i < kIos; ++i) {
        pattern[0] = static_cast<uint8_t>(i); // each command's data differs
        w::Sqe s = rw(nvme_cmd_write, uint64_t(i) * kBlocks, kBlocks);
        ASSERT_EQ(io.command(s, nullptr, 0, pattern.data(), kLen, false).status, 0);
    }

    set_cork(io, 1);
    for (int i = 0; i < kIos; ++i) {
        w::Sqe s = rw(nvme_cmd_read, uint64_t(i) * kBlocks, kBlocks);
        s.cid = static_cast<uint16_t>(400 + i);
        io.send_command(s, nullptr, 0, kLen);
    }
    set_cork(io, 0);
    std::vector<int> data_pdus(kIos, 0), responses(kIos, 0);
    for (int done = 0; done < kIos;) {
        auto pdu = io.recv_pdu();
        ASSERT_TRUE(pdu.has_value());
        ASSERT_TRUE(pdu->ch.flags & wt::kFlagHdgst);
        EXPECT_EQ(nvmeof::crc32c(pdu->bytes.data(), pdu->ch.hlen),
                  load_u32(pdu->bytes.data() + pdu->ch.hlen));
        if (pdu->ch.type == wt::kC2HData) {
            const auto &d = pdu->as<wt::DataPdu>();
            ASSERT_GE(d.cccid, 400);
            ASSERT_LT(d.cccid, 400 + kIos);
            int i = d.cccid - 400;
            ++data_pdus[i];
            EXPECT_EQ(d.ch.flags & (wt::kFlagDataLast | wt::kFlagDdgst), wt::kFlagDataLast | wt::kFlagDdgst);
            EXPECT_EQ(d.datao, 0u);
            ASSERT_EQ(d.datal, kLen);
            ASSERT_EQ(d.ch.plen, d.ch.pdo + kLen + 4u);
            const uint8_t *data = pdu->bytes.data() + d.ch.pdo;
            EXPECT_EQ(nvmeof::crc32c(data, kLen), load_u32(data + kLen)) << "data digest of command " << i;
            pattern[0] = static_cast<uint8_t>(i);
            EXPECT_EQ(std::memcmp(data, pattern.data(), kLen), 0) << "data of command " << i;
            continue;
        }
        ASSERT_EQ(pdu->ch.type, wt::kCapsuleResp);
        const auto &cqe = pdu->as<wt::CapsuleResp>().cqe;
        EXPECT_EQ(cqe.status, 0);
        ASSERT_GE(cqe.cid, 400);
        ASSERT_LT(cqe.cid, 400 + kIos);
        EXPECT_EQ(data_pdus[cqe.cid - 400], 1) << "the response follows its data";
        ++responses[cqe.cid - 400];
        ++done;
    }
    for (int i = 0; i < kIos; ++i) {
        EXPECT_EQ(data_pdus[i], 1) << "command " << i;
        EXPECT_EQ(responses[i], 1) << "command " << i;
    }
}

} // namespace
} // namespace skiff::test
