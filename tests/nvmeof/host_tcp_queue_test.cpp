// TcpQueue against a scripted controller on a real loopback socket: the test plays the target's
// side PDU by PDU, so framing cases our own target may never produce (R2T split by MAXH2CDATA,
// C2H padding, the SUCCESS flag, TermReq, corrupt digests, out-of-order completions) are covered.
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include "skiff/nvmeof/crc32c.hpp"
#include "skiff/nvmeof/host/commands.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <thread>
#include <vector>

using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;
using skiff::Result;
using skiff::Status;
using namespace skiff::nvmeof::wire::tcp;

namespace {

// The target's end of one connection, blocking calls, asserting as it goes.
class ScriptedController {
  public:
    ScriptedController() {
        lfd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        EXPECT_EQ(::bind(lfd_, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
        socklen_t len = sizeof(a);
        ::getsockname(lfd_, reinterpret_cast<sockaddr *>(&a), &len);
        port_ = ntohs(a.sin_port);
        EXPECT_EQ(::listen(lfd_, 1), 0);
    }
    ~ScriptedController() {
        if (fd_ >= 0) ::close(fd_);
        ::close(lfd_);
    }
    uint16_t port() const { return port_; }

    void accept_only() { fd_ = ::accept(lfd_, nullptr, nullptr); }
    void close_connection() {
        ::close(fd_);
        fd_ = -1;
    }

    // Accepts, reads the ICReq, answers with an ICResp.
    IcReq accept_and_answer(uint8_t cpda, uint8_t dgst, uint32_t maxh2cdata) {
        accept_only();
        IcReq req{};
        read(&req, sizeof(req));
        IcResp resp{};
        resp.ch = {kIcResp, 0, 128, 0, 128};
        resp.cpda = cpda;
        resp.dgst = dgst;
        resp.maxh2cdata = maxh2cdata;
        write(&resp, sizeof(resp));
        hdgst_ = dgst & kDgstHeader;
        ddgst_ = dgst & kDgstData;
        return req;
    }

    void read(void *p, size_t n) {
        auto *b = static_cast<uint8_t *>(p);
        while (n > 0) {
            ssize_t r = ::recv(fd_, b, n, 0);
            ASSERT_GT(r, 0) << "host closed the connection early";
            b += r;
            n -= static_cast<size_t>(r);
        }
    }
    void write(const void *p, size_t n) {
        ASSERT_EQ(::send(fd_, p, n, MSG_NOSIGNAL), static_cast<ssize_t>(n));
    }

    // One whole PDU from the host, digests checked.
    std::vector<uint8_t> read_pdu() {
        CommonHeader ch{};
        read(&ch, sizeof(ch));
        std::vector<uint8_t> pdu(ch.plen);
        std::memcpy(pdu.data(), &ch, sizeof(ch));
        read(pdu.data() + sizeof(ch), ch.plen - sizeof(ch));
        if (hdgst_) {
            uint32_t d;
            std::memcpy(&d, pdu.data() + ch.hlen, 4);
            EXPECT_EQ(d, crc32c(pdu.data(), ch.hlen)) << "header digest of PDU type " << int(ch.type);
        }
        if (ddgst_ && ch.pdo != 0) {
            uint32_t d;
            std::memcpy(&d, pdu.data() + ch.plen - 4, 4);
            EXPECT_EQ(d, crc32c(pdu.data() + ch.pdo, ch.plen - ch.pdo - 4)) << "data digest";
        }
        return pdu;
    }

    // Sends a header-only PDU (plus header digest when negotiated).
    void send_header(void *hdr, uint8_t hlen, uint8_t type) {
        auto *ch = static_cast<CommonHeader *>(hdr);
        ch->type = type;
        ch->hlen = hlen;
        ch->plen = hlen + (hdgst_ ? 4u : 0u);
        if (hdgst_) ch->flags |= kFlagHdgst;
        write(hdr, hlen);
        if (hdgst_) {
            uint32_t d = crc32c(hdr, hlen);
            write(&d, 4);
        }
    }

    void send_resp(uint16_t cid, uint16_t status = 0) {
        CapsuleResp r{};
        r.cqe.cid = cid;
        r.cqe.status = status;
        send_header(&r, sizeof(r), kCapsuleResp);
    }

    // C2HData with data at `pdo` (padding before it).
    void send_c2h(uint16_t cid, uint32_t offset, const uint8_t *data, uint32_t len, uint8_t pdo,
                  uint8_t flags) {
        DataPdu p{};
        p.ch = {kC2HData, static_cast<uint8_t>(flags | (hdgst_ ? kFlagHdgst : 0) | (ddgst_ ? kFlagDdgst : 0)),
                24, pdo, pdo + len + (ddgst_ ? 4u : 0u)};
        p.cccid = cid;
        p.datao = offset;
        p.datal = len;
        std::vector<uint8_t> out(pdo, 0);
        std::memcpy(out.data(), &p, sizeof(p));
        if (hdgst_) {
            uint32_t d = crc32c(&p, sizeof(p));
            std::memcpy(out.data() + 24, &d, 4);
        }
        out.insert(out.end(), data, data + len);
        if (ddgst_) {
            uint32_t d = crc32c(data, len);
            out.insert(out.end(), reinterpret_cast<uint8_t *>(&d), reinterpret_cast<uint8_t *>(&d) + 4);
        }
        write(out.data(), out.size());
    }

  private:
    int lfd_ = -1, fd_ = -1;
    uint16_t port_ = 0;
    bool hdgst_ = false, ddgst_ = false;
};

QueueConfig config_for(uint16_t port, bool digests, uint16_t qid = 1) {
    QueueConfig c;
    c.port = port;
    c.qid = qid;
    c.queue_size = 16;
    c.header_digest = digests;
    c.data_digest = digests;
    c.timeout = std::chrono::seconds(5);
    return c;
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 31 + seed);
    return v;
}

} // namespace

TEST(HostTcpQueue, LargeWriteIsSplitIntoH2CDataByMaxH2CData) {
    ScriptedController ctrl;
    const std::vector<uint8_t> data = pattern(10000, 7);
    std::thread peer([&] {
        IcReq req = ctrl.accept_and_answer(3, kDgstHeader | kDgstData, 4096);
        EXPECT_EQ(req.dgst, kDgstHeader | kDgstData);
        std::vector<uint8_t> cap = ctrl.read_pdu();
        const auto &cmd = *reinterpret_cast<const CapsuleCmd *>(cap.data());
        EXPECT_EQ(cmd.ch.type, kCapsuleCmd);
        EXPECT_EQ(cmd.ch.pdo, 0) << "no in-capsule data";
        EXPECT_EQ(cmd.sqe.dptr.id, wire::kSglIdTcpTransport);
        EXPECT_EQ(cmd.sqe.dptr.length, 10000u);
        EXPECT_EQ(cmd.sqe.flags & wire::kPsdtMask, wire::kPsdtSgl);
        R2T r2t{};
        r2t.cccid = cmd.sqe.cid;
        r2t.ttag = 0x55;
        r2t.r2to = 0;
        r2t.r2tl = 10000;
        ctrl.send_header(&r2t, sizeof(r2t), kR2T);
        std::vector<uint8_t> got;
        for (uint32_t expect_len : {4096u, 4096u, 1808u}) {
            std::vector<uint8_t> h2c = ctrl.read_pdu();
            const auto &p = *reinterpret_cast<const DataPdu *>(h2c.data());
            EXPECT_EQ(p.ch.type, kH2CData);
            EXPECT_EQ(p.ch.pdo, 32) << "24-byte header + digest padded to CPDA 3 = 16-byte units";
            EXPECT_EQ(p.ttag, 0x55);
            EXPECT_EQ(p.datao, got.size());
            EXPECT_EQ(p.datal, expect_len);
            EXPECT_EQ(bool(p.ch.flags & kFlagDataLast), expect_len == 1808u);
            got.insert(got.end(), h2c.begin() + p.ch.pdo, h2c.begin() + p.ch.pdo + p.datal);
        }
        EXPECT_EQ(got, data);
        ctrl.send_resp(cmd.sqe.cid);
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), true));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    EXPECT_EQ((*q)->params().cpda_align, 16u);
    std::vector<uint8_t> buf = data;
    Result<Completion> c = (*q)->execute(cmd::write(1, 0, 20), DataDir::kHostToController, buf.data(), 10000);
    peer.join();
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_TRUE(c->nvme_ok());
}

TEST(HostTcpQueue, SmallWriteTravelsInCapsule) {
    ScriptedController ctrl;
    const std::vector<uint8_t> data = pattern(512, 3);
    std::thread peer([&] {
        ctrl.accept_and_answer(0, 0, 8192);
        std::vector<uint8_t> cap = ctrl.read_pdu();
        const auto &cmd = *reinterpret_cast<const CapsuleCmd *>(cap.data());
        EXPECT_EQ(cmd.sqe.dptr.id, wire::kSglIdInCapsule);
        EXPECT_EQ(cmd.sqe.dptr.length, 512u);
        EXPECT_EQ(cmd.ch.pdo, 72);
        EXPECT_EQ(cmd.ch.plen, 72u + 512u);
        EXPECT_TRUE(std::equal(data.begin(), data.end(), cap.begin() + 72));
        ctrl.send_resp(cmd.sqe.cid, wire::Status::make(0, 0x80));
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    (*q)->set_in_capsule_limit(4096);
    std::vector<uint8_t> buf = data;
    Result<Completion> c =
        (*q)->execute(cmd::write(1, 1u << 30, 1), DataDir::kHostToController, buf.data(), 512);
    peer.join();
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_EQ(c->sct(), 0);
    EXPECT_EQ(c->sc(), 0x80) << "the controller's status reaches the caller unchanged";
}

TEST(HostTcpQueue, ReadAcrossPaddedC2HDataEndingWithSuccessFlag) {
    ScriptedController ctrl;
    const std::vector<uint8_t> data = pattern(8192, 11);
    std::thread peer([&] {
        IcReq req = ctrl.accept_and_answer(0, kDgstData, 8192);
        EXPECT_EQ(req.hpda, 7);
        std::vector<uint8_t> cap = ctrl.read_pdu();
        const auto &cmd = *reinterpret_cast<const CapsuleCmd *>(cap.data());
        EXPECT_EQ(cmd.sqe.dptr.id, wire::kSglIdTcpTransport);
        EXPECT_EQ(cmd.sqe.dptr.length, 8192u);
        ctrl.send_c2h(cmd.sqe.cid, 0, data.data(), 5000, 32, 0);
        ctrl.send_c2h(cmd.sqe.cid, 5000, data.data() + 5000, 3192, 32, kFlagDataLast | kFlagDataSuccess);
    });
    QueueConfig cfg = config_for(ctrl.port(), true); // asks for both digests, gets the data digest only
    cfg.hpda = 7;
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(cfg);
    ASSERT_TRUE(q.ok()) << q.error().describe();
    EXPECT_FALSE((*q)->params().header_digest);
    EXPECT_TRUE((*q)->params().data_digest);
    std::vector<uint8_t> buf(8192, 0);
    Result<Completion> c = (*q)->execute(cmd::read(1, 0, 16), DataDir::kControllerToHost, buf.data(), 8192);
    peer.join();
    ASSERT_TRUE(c.ok()) << c.error().describe();
    EXPECT_TRUE(c->nvme_ok());
    EXPECT_EQ(buf, data);
}

TEST(HostTcpQueue, ManyOutstandingCommandsCompleteOutOfOrder) {
    ScriptedController ctrl;
    constexpr int kCount = 15; // queue size 16 -> 15 slots
    std::thread peer([&] {
        ctrl.accept_and_answer(0, 0, 8192);
        std::vector<uint16_t> cids;
        for (int i = 0; i < kCount; ++i) {
            std::vector<uint8_t> cap = ctrl.read_pdu();
            cids.push_back(reinterpret_cast<const CapsuleCmd *>(cap.data())->sqe.cid);
        }
        for (auto it = cids.rbegin(); it != cids.rend(); ++it) ctrl.send_resp(*it);
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    for (int i = 0; i < kCount; ++i) {
        Result<uint16_t> cid =
            (*q)->submit(cmd::flush(1), DataDir::kNone, nullptr, 0, 1000 + i, i + 1 < kCount);
        ASSERT_TRUE(cid.ok()) << cid.error().describe();
    }
    Result<uint16_t> over = (*q)->submit(cmd::flush(1), DataDir::kNone, nullptr, 0);
    ASSERT_FALSE(over.ok());
    EXPECT_EQ(over.error().code, DOCA_ERROR_FULL);
    std::vector<uint64_t> tags;
    while (tags.size() < kCount) {
        Result<uint32_t> n = (*q)->poll(std::chrono::seconds(5));
        ASSERT_TRUE(n.ok()) << n.error().describe();
        ASSERT_GT(*n, 0u) << "no completion within 5 s";
        Completion c;
        while ((*q)->pop_completion(c)) tags.push_back(c.tag);
    }
    peer.join();
    EXPECT_EQ(tags.front(), 1000u + kCount - 1);
    EXPECT_EQ(tags.back(), 1000u);
    EXPECT_EQ((*q)->outstanding(), 0u);
}

TEST(HostTcpQueue, TermReqFailsTheQueueWithItsFes) {
    ScriptedController ctrl;
    std::thread peer([&] {
        ctrl.accept_and_answer(0, kDgstHeader, 8192);
        ctrl.read_pdu();
        TermReq t{};
        t.ch = {kC2HTermReq, 0, 24, 0, 24 + 72};
        t.fes = kFesHeaderDigestError;
        ctrl.write(&t, sizeof(t));
        std::vector<uint8_t> echoed(72, 0);
        ctrl.write(echoed.data(), echoed.size());
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), true));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    Result<Completion> c = (*q)->execute(cmd::flush(1));
    peer.join();
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, DOCA_ERROR_CONNECTION_ABORTED);
    EXPECT_NE(c.error().message.find("FES 03h (Header Digest Error)"), std::string::npos)
        << c.error().message;
    EXPECT_TRUE((*q)->failed());
    Result<uint16_t> again = (*q)->submit(cmd::flush(1), DataDir::kNone, nullptr, 0);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.error().code, DOCA_ERROR_CONNECTION_ABORTED);
}

TEST(HostTcpQueue, CorruptHeaderDigestFromTargetIsAProtocolError) {
    ScriptedController ctrl;
    std::thread peer([&] {
        ctrl.accept_and_answer(0, kDgstHeader, 8192);
        std::vector<uint8_t> cap = ctrl.read_pdu();
        CapsuleResp r{};
        r.ch = {kCapsuleResp, kFlagHdgst, 24, 0, 28};
        r.cqe.cid = reinterpret_cast<const CapsuleCmd *>(cap.data())->sqe.cid;
        ctrl.write(&r, sizeof(r));
        uint32_t wrong = crc32c(&r, sizeof(r)) ^ 1u;
        ctrl.write(&wrong, 4);
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), true));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    Result<Completion> c = (*q)->execute(cmd::flush(1));
    peer.join();
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, DOCA_ERROR_UNEXPECTED);
    EXPECT_NE(c.error().message.find("header digest mismatch"), std::string::npos) << c.error().message;
}

TEST(HostTcpQueue, RejectedIcReqReportsTheTermReq) {
    ScriptedController ctrl;
    std::thread peer([&] {
        ctrl.accept_only();
        IcReq req{};
        ctrl.read(&req, sizeof(req));
        TermReq t{};
        t.ch = {kC2HTermReq, 0, 24, 0, 24 + 128};
        t.fes = kFesInvalidHeaderField;
        t.fei = 8; // PFV
        ctrl.write(&t, sizeof(t));
        ctrl.write(&req, sizeof(req));
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    peer.join();
    ASSERT_FALSE(q.ok());
    EXPECT_EQ(q.error().code, DOCA_ERROR_CONNECTION_ABORTED);
    EXPECT_NE(q.error().message.find("FES 01h (Invalid PDU Header Field), FEI 0x8"), std::string::npos)
        << q.error().message;
}

TEST(HostTcpQueue, UnansweredCommandTimesOutAndClosesTheQueue) {
    ScriptedController ctrl;
    std::promise<void> done;
    std::thread peer([&] {
        ctrl.accept_and_answer(0, 0, 8192);
        ctrl.read_pdu(); // and never answer
        done.get_future().wait();
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    std::vector<uint8_t> buf(512);
    Result<Completion> c = (*q)->execute(cmd::read(1, 0, 1), DataDir::kControllerToHost, buf.data(), 512,
                                         std::chrono::milliseconds(200));
    done.set_value();
    peer.join();
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, DOCA_ERROR_TIME_OUT);
    EXPECT_TRUE((*q)->failed()) << "a late answer must not land in a buffer the caller has given up";
    EXPECT_FALSE((*q)->socket().is_open());
}

TEST(HostTcpQueue, NothingListeningIsAConnectionErrorWithTheErrno) {
    uint16_t port;
    {
        ScriptedController closed; // bound and listening only inside this scope
        port = closed.port();
    }
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(port, false));
    ASSERT_FALSE(q.ok());
    EXPECT_EQ(q.error().code, DOCA_ERROR_CONNECTION_ABORTED);
    EXPECT_NE(q.error().message.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
        << q.error().message;
    EXPECT_NE(q.error().message.find("Connection refused (errno 111)"), std::string::npos)
        << q.error().message;
}

TEST(HostTcpQueue, PeerThatClosesInsteadOfAnsweringIsNamed) {
    ScriptedController ctrl;
    std::thread peer([&] {
        ctrl.accept_and_answer(0, 0, 8192);
        ctrl.read_pdu();
        ctrl.close_connection(); // instead of answering
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    Result<uint16_t> cid = (*q)->submit(cmd::flush(1), DataDir::kNone, nullptr, 0);
    ASSERT_TRUE(cid.ok());
    peer.join();
    Result<uint32_t> n = (*q)->poll(std::chrono::seconds(5));
    ASSERT_FALSE(n.ok());
    EXPECT_EQ(n.error().code, DOCA_ERROR_CONNECTION_RESET);
    EXPECT_NE(n.error().message.find("connection closed by 127.0.0.1"), std::string::npos)
        << n.error().message;
}

TEST(HostTcpQueue, PollWaitsPastAnR2tForACompletion) {
    // An R2T completes nothing: poll() answers it and keeps waiting for the response capsule
    // instead of returning 0 completions (which a caller would read as "nothing within timeout").
    ScriptedController ctrl;
    std::thread peer([&] {
        ctrl.accept_and_answer(0, 0, 8192);
        std::vector<uint8_t> cap = ctrl.read_pdu();
        const uint16_t cid = reinterpret_cast<const CapsuleCmd *>(cap.data())->sqe.cid;
        R2T r2t{};
        r2t.cccid = cid;
        r2t.r2tl = 65536;
        ctrl.send_header(&r2t, sizeof(r2t), kR2T);
        ctrl.read_pdu(); // the H2CData, then the answer, late enough that the host must wait
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ctrl.send_resp(cid);
    });
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(config_for(ctrl.port(), false));
    ASSERT_TRUE(q.ok()) << q.error().describe();
    std::vector<uint8_t> data = pattern(65536, 1);
    ASSERT_TRUE((*q)->submit(cmd::write(1, 0, 128), DataDir::kHostToController, data.data(), 65536, 7).ok());
    Result<uint32_t> n = (*q)->poll(std::chrono::seconds(5));
    peer.join();
    ASSERT_TRUE(n.ok()) << n.error().describe();
    EXPECT_EQ(*n, 1u);
    Completion c;
    ASSERT_TRUE((*q)->pop_completion(c));
    EXPECT_EQ(c.tag, 7u);
}
