// Bad input gets the answer the NVMe/TCP and NVMe specifications give it, on that connection
// only: another host's connection keeps doing I/O throughout.
#include "raw_client.hpp"
#include "target_fixture.hpp"

#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

#include <cstddef>
#include <cstring>
#include <random>

#include <sys/socket.h>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using namespace skiff::nvmeof::wire::tcp;
using namespace std::chrono_literals;

class integration_bad_input : public TargetTest {
  protected:
    void SetUp() override {
        start_target();
        if (HasFatalFailure()) return;
        healthy_ = connect(options());
        ASSERT_NE(healthy_, nullptr);
    }

    // The bystander: a write and read-back of 4 KiB on its own connection.
    void expect_healthy() {
        const std::vector<uint8_t> data = pattern(4096, ++round_);
        std::vector<uint8_t> back(4096);
        ASSERT_OK(healthy_->write(0, 1, 64, 4096 / kBlock, data.data(), 4096));
        ASSERT_OK(healthy_->read(0, 1, 64, 4096 / kBlock, back.data(), 4096));
        EXPECT_TRUE(back == data) << "the other connection's data is intact";
    }

    // A fresh connection to the I/O port that has done ICReq/ICResp, with the given digests.
    std::unique_ptr<TcpQueue> raw_queue(bool header_digest) {
        QueueConfig qc;
        qc.port = io_port_;
        qc.header_digest = header_digest;
        Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
        if (!q) {
            ADD_FAILURE() << q.error().describe();
            return nullptr;
        }
        EXPECT_EQ((*q)->params().header_digest, header_digest);
        return std::move(q.value());
    }

    // The target's answer to a fatal error: a C2HTermReq with `fes`, then the connection closes.
    // fei < 0: any FEI.
    static void expect_term_req(TcpSocket &sock, uint16_t fes, const char *why, int64_t fei = -1) {
        TermReq term{};
        ASSERT_OK(sock.recv_exact(&term.ch, sizeof(term.ch), deadline_after(10s)));
        ASSERT_EQ(term.ch.type, kC2HTermReq)
            << why << ": expected a C2HTermReq, got PDU type " << int(term.ch.type);
        ASSERT_EQ(term.ch.hlen, sizeof(TermReq));
        ASSERT_GE(term.ch.plen, sizeof(TermReq));
        ASSERT_LE(term.ch.plen, sizeof(TermReq) + kTermReqMaxData);
        // The rest of the header lands after the common header; fes and fei are packed fields
        // (FEI sits unaligned at byte 10), read by value.
        ASSERT_OK(sock.recv_exact(reinterpret_cast<uint8_t *>(&term) + sizeof(term.ch),
                                  sizeof(term) - sizeof(term.ch), deadline_after(10s)));
        const uint16_t got_fes = term.fes;
        const uint32_t got_fei = term.fei;
        EXPECT_EQ(got_fes, fes) << why << ": " << describe_term_req(term);
        if (fei >= 0) {
            EXPECT_EQ(got_fei, static_cast<uint32_t>(fei)) << why << ": " << describe_term_req(term);
        }
        std::vector<uint8_t> echoed(term.ch.plen - sizeof(TermReq));
        ASSERT_OK(sock.recv_exact(echoed.data(), echoed.size(), deadline_after(10s)));
        uint8_t byte;
        Result<size_t> after = sock.recv_some(&byte, 1, deadline_after(10s));
        ASSERT_OK(after);
        EXPECT_EQ(*after, 0u) << why << ": the target must close the connection after its TermReq";
    }

    // The target's log names the peer and the violation (the line is written before the close).
    void expect_log(const std::string &line) {
        EXPECT_NE(target_->log().find(line), std::string::npos) << "no log line \"" << line << "\"";
    }

    std::unique_ptr<Controller> healthy_;
    uint32_t round_ = 0;
};

TEST_F(integration_bad_input, IcReqWithWrongPfvGetsTermReqUnsupportedParameter) {
    // PFV 1 is a well-formed value the controller does not support: FES 06h, FEI = PFV's offset.
    // (SPDK answers 01h Invalid Header Field here; skiff follows the FES 06h definition.)
    Result<TcpSocket> sock = TcpSocket::connect("127.0.0.1", io_port_, 5s);
    ASSERT_OK(sock);
    IcReq req = make_ic_req(false, false, 0, 0);
    req.pfv = 1;
    ASSERT_OK(sock->send_all(&req, sizeof(req), deadline_after(5s)));
    expect_term_req(*sock, kFesUnsupportedParameter, "ICReq PFV 1", offsetof(IcReq, pfv));
    expect_healthy();
}

TEST_F(integration_bad_input, BadHeaderDigestGetsTermReqHeaderDigestError) {
    std::unique_ptr<TcpQueue> q = raw_queue(true);
    ASSERT_NE(q, nullptr);
    uint8_t pdu[sizeof(CapsuleCmd) + kDigestLen] = {};
    auto &cmd = *reinterpret_cast<CapsuleCmd *>(pdu);
    cmd.ch = {kCapsuleCmd, kFlagHdgst, sizeof(CapsuleCmd), 0, sizeof(pdu)};
    cmd.sqe = host::cmd::keep_alive();
    const uint32_t wrong = crc32c(pdu, sizeof(CapsuleCmd)) ^ 0xFFFFFFFFu;
    std::memcpy(pdu + sizeof(CapsuleCmd), &wrong, sizeof(wrong));
    ASSERT_OK(q->send_raw(pdu, sizeof(pdu)));
    const std::string peer = local_peer(q->socket().fd());
    expect_term_req(q->socket(), kFesHeaderDigestError, "capsule with a corrupt header digest");
    expect_log(peer + ": fatal transport error: header digest mismatch");
    expect_healthy();
}

TEST_F(integration_bad_input, OversizedPduGetsTermReq) {
    std::unique_ptr<TcpQueue> q = raw_queue(false);
    ASSERT_NE(q, nullptr);
    // A capsule claiming 1 MiB of in-capsule data: far beyond the 8 KiB an admin queue takes.
    CapsuleCmd cmd{};
    cmd.ch = {kCapsuleCmd, 0, sizeof(CapsuleCmd), sizeof(CapsuleCmd), sizeof(CapsuleCmd) + (1u << 20)};
    cmd.sqe = host::cmd::connect(0, 31, 0, false);
    cmd.sqe.flags = wire::kPsdtSgl;
    cmd.sqe.dptr.id = wire::kSglIdInCapsule;
    cmd.sqe.dptr.length = 1u << 20;
    ASSERT_OK(q->send_raw(&cmd, sizeof(cmd)));
    const std::string peer = local_peer(q->socket().fd());
    expect_term_req(q->socket(), kFesDataLimitExceeded, "capsule with 1 MiB of in-capsule data");
    expect_log(peer + ": fatal transport error: PDU data exceeds the in-capsule or MAXH2CDATA limit");
    expect_healthy();
}

TEST_F(integration_bad_input, NotNvmeAtAllGetsTermReqAndALogLine) {
    // A client that is not an NVMe host: an HTTP request where the ICReq belongs. 'G' (47h) is no
    // PDU type a host may send: FES 01h Invalid Header Field at the type's offset.
    Result<TcpSocket> http = TcpSocket::connect("127.0.0.1", io_port_, 5s);
    ASSERT_OK(http);
    const std::string get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    ASSERT_OK(http->send_all(get.data(), get.size(), deadline_after(5s)));
    const std::string http_peer = local_peer(http->fd());
    expect_term_req(*http, kFesInvalidHeaderField, "an HTTP request instead of an ICReq", 0);
    expect_log(http_peer + ": fatal transport error: PDU type a host may not send");

    // Random bytes that start like a command capsule: a PDU before ICReq is a sequence error.
    Result<TcpSocket> noise = TcpSocket::connect("127.0.0.1", io_port_, 5s);
    ASSERT_OK(noise);
    std::mt19937 rng(16);
    std::vector<uint8_t> bytes(128);
    for (auto &b : bytes) b = static_cast<uint8_t>(rng());
    bytes[0] = kCapsuleCmd;
    ASSERT_OK(noise->send_all(bytes.data(), bytes.size(), deadline_after(5s)));
    const std::string noise_peer = local_peer(noise->fd());
    expect_term_req(*noise, kFesPduSequenceError, "random bytes instead of an ICReq");
    expect_log(noise_peer + ": fatal transport error: first PDU is not ICReq");
    expect_healthy();
}

TEST_F(integration_bad_input, UnknownOpcodesGetInvalidOpcode) {
    wire::Sqe io{};
    io.opcode = 0x7E; // reserved in the NVM command set
    io.nsid = 1;
    Result<Completion> c = healthy_->io_queue(0).execute(io);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_GENERIC) << describe_status(c->status());
    EXPECT_EQ(c->sc(), NVME_SC_INVALID_OPCODE) << describe_status(c->status());

    wire::Sqe admin{};
    admin.opcode = 0x3F; // reserved admin opcode
    c = healthy_->admin(admin);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_GENERIC) << describe_status(c->status());
    EXPECT_EQ(c->sc(), NVME_SC_INVALID_OPCODE) << describe_status(c->status());
    expect_healthy();
}

TEST_F(integration_bad_input, LbaOutOfRangeIsRefusedAndNothingIsWritten) {
    const uint64_t nsze = kSizeBytes / kBlock;
    std::vector<uint8_t> buf(2 * kBlock, 0xAB);
    Result<Completion> c = healthy_->io_queue(0).execute(host::cmd::read(1, nsze - 1, 2),
                                                         DataDir::kControllerToHost, buf.data(), 2 * kBlock);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_GENERIC) << describe_status(c->status());
    EXPECT_EQ(c->sc(), NVME_SC_LBA_RANGE) << describe_status(c->status());

    c = healthy_->io_queue(0).execute(host::cmd::write(1, nsze, 1), DataDir::kHostToController, buf.data(),
                                      kBlock);
    ASSERT_OK(c);
    EXPECT_EQ(c->sc(), NVME_SC_LBA_RANGE) << describe_status(c->status());

    // The last block is still readable and was not touched by the refused commands.
    std::vector<uint8_t> last(kBlock, 0x11);
    ASSERT_OK(healthy_->read(0, 1, nsze - 1, 1, last.data(), kBlock));
    EXPECT_EQ(last, std::vector<uint8_t>(kBlock, 0)) << "a fresh RAM namespace reads as zeroes";

    Status via_api = healthy_->read(0, 1, nsze, 1, buf.data(), kBlock);
    ASSERT_FALSE(via_api.ok());
    EXPECT_EQ(via_api.error().code, DOCA_ERROR_INVALID_VALUE);
    EXPECT_NE(via_api.error().message.find("sc 80h (LBA Out of Range)"), std::string::npos);
    expect_healthy();
}

TEST_F(integration_bad_input, RandomPdusNeverHurtTheTargetOrOtherHosts) {
    // 200 connections, each sending one malformed PDU after a valid ICReq (or instead of it):
    // random type, flags, HLEN, PDO and a PLEN that matches what is sent in half the cases.
    // Whatever the target answers, it must survive, and the bystander must keep working.
    std::mt19937 rng(20261122); // fixed seed: a failure reproduces
    int term_reqs = 0;
    for (int i = 0; i < 200; ++i) {
        SCOPED_TRACE("random PDU " + std::to_string(i));
        Result<TcpSocket> sock = TcpSocket::connect("127.0.0.1", io_port_, 5s);
        ASSERT_OK(sock);
        if (i % 2 == 0) {
            IcReq req = make_ic_req(false, false, 0, 0);
            ASSERT_OK(sock->send_all(&req, sizeof(req), deadline_after(5s)));
            IcResp resp{};
            ASSERT_OK(sock->recv_exact(&resp, sizeof(resp), deadline_after(5s)));
        }
        std::vector<uint8_t> pdu(8 + rng() % 200);
        for (auto &b : pdu) b = static_cast<uint8_t>(rng());
        auto &ch = *reinterpret_cast<CommonHeader *>(pdu.data());
        ch.type = static_cast<uint8_t>(rng() % 12);
        if (rng() % 2) ch.plen = static_cast<uint32_t>(pdu.size());
        ASSERT_OK(sock->send_all(pdu.data(), pdu.size(), deadline_after(5s)));
        ::shutdown(sock->fd(), SHUT_WR); // nothing more is coming: the target must not wait forever
        // Drain whatever comes back (a TermReq, a response, nothing) until the target closes.
        uint8_t sink[4096];
        bool first = true;
        for (;;) {
            Result<size_t> n = sock->recv_some(sink, sizeof(sink), deadline_after(10s));
            if (!n || *n == 0) break;
            if (first && sink[0] == kC2HTermReq) ++term_reqs;
            first = false;
        }
        ASSERT_TRUE(target_->running()) << "skiff-target died on random PDU " << i;
    }
    EXPECT_GT(term_reqs, 0) << "malformed PDUs are answered with C2HTermReq";
    RecordProperty("c2h_term_reqs", term_reqs);
    expect_healthy();
}
