// The data path allocates nothing: a real TCP connection is driven by hand on this thread and
// every heap allocation made inside the target's calls (receive, parse, execute, send) is
// counted. Connection setup (and opening a namespace's channel on the first I/O) may
// allocate; steady-state I/O must not, on the RAM backend and on the asynchronous aio backend
// (a real file, completions reaped through an eventfd in a poll-group-like loop).
#include "raw_tcp_client.hpp"
#include "skiff/dataplane/aio_device.hpp"
#include "skiff/dataplane/ram_device.hpp"
#include "test_loop.hpp"
#include "skiff/nvmeof/target/target.hpp"
#include "skiff/nvmeof/transport/transport.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <new>

// The replacements below pair malloc with free by design.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
thread_local bool g_counting = false;
thread_local uint64_t g_allocations = 0;
} // namespace

// Counting replacements of the global allocation functions. Every non-aligned form is
// replaced so allocation and release always pair (sanitizers check that).
namespace {
void *counted_alloc(std::size_t n) {
    if (g_counting) ++g_allocations;
    return std::malloc(n ? n : 1);
}
} // namespace
void *operator new(std::size_t n) {
    if (void *p = counted_alloc(n)) return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t n) {
    if (void *p = counted_alloc(n)) return p;
    throw std::bad_alloc();
}
void *operator new(std::size_t n, const std::nothrow_t &) noexcept {
    return counted_alloc(n);
}
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept {
    return counted_alloc(n);
}
void operator delete(void *p) noexcept {
    std::free(p);
}
void operator delete[](void *p) noexcept {
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
    std::free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
    std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
    std::free(p);
}

namespace skiff::test {
namespace {

namespace tgt = nvmeof::target;

class DataPath : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        auto subsys = std::make_shared<tgt::Subsystem>(kNqn, tgt::SubsystemKind::kNvm);
        std::shared_ptr<tgt::BlockDevice> dev;
        if (GetParam() == "aio") {
            char tmpl[] = "/tmp/skiff-alloc-XXXXXX";
            int fd = mkstemp(tmpl);
            ASSERT_GE(fd, 0);
            ::close(fd);
            file = tmpl;
            auto aio = dataplane::AioDevice::open({.path = file, .size_bytes = 16 << 20, .create = true});
            ASSERT_TRUE(aio.ok()) << aio.error().message;
            dev = *aio;
        } else {
            auto ram = dataplane::RamDevice::create(16 << 20);
            ASSERT_TRUE(ram.ok());
            dev = *ram;
        }
        ASSERT_TRUE(
            subsys->add_namespace(std::make_shared<tgt::Namespace>(1, 512, dev, tgt::NamespaceIds{})).ok());
        ASSERT_TRUE(target.add_subsystem(subsys).ok());
        auto t = nvmeof::transport::make_transport("tcp");
        ASSERT_TRUE(t.ok());
        transport = std::move(t.value());
        auto fd = transport->listen({"127.0.0.1", 0});
        ASSERT_TRUE(fd.ok());
        listen_fd = *fd;
        port = target.add_port(
            {0, "tcp", "127.0.0.1", std::to_string(transport->bound_port(listen_fd)), false, std::nullopt});
    }
    void TearDown() override {
        ::close(listen_fd);
        if (!file.empty()) ::unlink(file.c_str());
    }

    // Accepts the client's connection as a Connection driven by this thread and its loop.
    std::unique_ptr<nvmeof::transport::Connection> accept() {
        for (;;)
            if (auto c = transport->accept(listen_fd, target, port, 0)) {
                c->attach(loop);
                return c;
            }
    }
    // Lets the target handle everything that arrived (and the backend complete it), counting
    // its allocations.
    void pump(nvmeof::transport::Connection &c, uint64_t now_ms = 1) {
        g_counting = true;
        c.on_readable();
        while (loop.io_in_flight() > 0) loop.run_once(10);
        c.progress(); // sends what asynchronous completions queued
        c.on_writable();
        c.poll(now_ms);
        g_counting = false;
    }

    const std::string kNqn = "nqn.2026-11.io.skiff:alloc";
    const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    tgt::Target target;
    std::unique_ptr<nvmeof::transport::Transport> transport;
    int listen_fd = -1;
    tgt::Port port;
    TestLoop loop;
    std::string file; // the aio backend's file
};

// Sends a PDU-producing request, pumps the target until the client has its answer.
template <typename Send>
w::Cqe exchange(RawTcpClient &client, nvmeof::transport::Connection &conn, std::function<void()> pump,
                Send send, uint16_t cid, std::vector<uint8_t> *in = nullptr, const void *out = nullptr) {
    send();
    pump();
    // Answers an R2T (if any) and collects data; pumping again lets the target finish.
    for (;;) {
        auto pdu = client.recv_pdu();
        if (!pdu) throw std::runtime_error("closed");
        if (pdu->ch.type == wt::kR2T) {
            const auto &r = pdu->as<wt::R2T>();
            client.send_h2c(r.cccid, r.ttag, r.r2to, static_cast<const uint8_t *>(out) + r.r2to, r.r2tl,
                            true);
            pump();
            continue;
        }
        if (pdu->ch.type == wt::kC2HData) {
            const auto &d = pdu->as<wt::DataPdu>();
            if (in) in->assign(pdu->bytes.begin() + d.ch.pdo, pdu->bytes.begin() + d.ch.pdo + d.datal);
            continue;
        }
        if (pdu->ch.type == wt::kCapsuleResp) {
            auto cqe = pdu->as<wt::CapsuleResp>().cqe;
            if (cqe.cid == cid) return cqe;
        }
    }
}

TEST_P(DataPath, SteadyStateReadsAndWritesAllocateNothing) {
    RawTcpClient admin_client(static_cast<uint16_t>(std::stoi(port.trsvcid)));
    auto admin = accept();
    RawTcpClient io_client(static_cast<uint16_t>(std::stoi(port.trsvcid)));
    auto io = accept();

    // Admin queue: ICReq, Connect, CC.EN (setup: allocations allowed).
    auto pump_admin = [&] { pump(*admin); };
    auto pump_io = [&] { pump(*io); };
    wt::IcReq ic{};
    ic.ch = {wt::kIcReq, 0, 128, 0, 128};
    admin_client.send_raw(&ic, sizeof(ic));
    pump_admin();
    ASSERT_EQ(admin_client.recv_pdu()->ch.type, wt::kIcResp);
    io_client.send_raw(&ic, sizeof(ic));
    pump_io();
    ASSERT_EQ(io_client.recv_pdu()->ch.type, wt::kIcResp);

    auto connect = [&](RawTcpClient &c, nvmeof::transport::Connection &conn, uint16_t qid, uint16_t cntlid) {
        w::Sqe sqe{};
        auto &cc = reinterpret_cast<w::ConnectCmd &>(sqe);
        cc.opcode = w::kFabricsOpcode;
        cc.cid = 1;
        cc.fctype = w::kFctConnect;
        cc.qid = qid;
        cc.sqsize = 31;
        nvmf_connect_data d{};
        d.cntlid = cntlid;
        std::strcpy(d.subsysnqn, kNqn.c_str());
        std::strcpy(d.hostnqn, kHost.c_str());
        return exchange(
            c, conn, [&] { pump(conn); }, [&] { c.send_command(sqe, &d, sizeof(d)); }, 1);
    };
    auto cqe = connect(admin_client, *admin, 0, 0xFFFF);
    ASSERT_EQ(cqe.status, 0);
    w::Sqe en{};
    auto &p = reinterpret_cast<w::PropertyCmd &>(en);
    p.opcode = w::kFabricsOpcode;
    p.cid = 2;
    p.fctype = w::kFctPropertySet;
    p.offset = w::kPropCc;
    p.value = 1;
    ASSERT_EQ(exchange(
                  admin_client, *admin, pump_admin, [&] { admin_client.send_command(en); }, 2)
                  .status,
              0);
    ASSERT_EQ(connect(io_client, *io, 1, static_cast<uint16_t>(cqe.result)).status, 0);

    // Steady state: in-capsule writes, R2T writes, reads, flushes.
    std::vector<uint8_t> small(4096, 0x11), big(64 * 1024, 0x22), got;
    // The namespace's first I/O on this loop opens its channel (allocates, once).
    w::Sqe warm{};
    warm.opcode = nvme_cmd_write;
    warm.cid = 99;
    warm.nsid = 1;
    warm.cdw12 = 7;
    ASSERT_EQ(exchange(
                  io_client, *io, pump_io, [&] { io_client.send_command(warm, small.data(), 4096); }, 99)
                  .status,
              0);
    g_allocations = 0;
    for (uint16_t i = 0; i < 200; ++i) {
        uint16_t cid = static_cast<uint16_t>(100 + i);
        w::Sqe s{};
        s.cid = cid;
        s.nsid = 1;
        s.cdw10 = ((i / 4) % 50) * 128; // the read (i % 4 == 2) sees the R2T write before it
        switch (i % 4) {
        case 0:
            s.opcode = nvme_cmd_write;
            s.cdw12 = 7;
            ASSERT_EQ(
                exchange(
                    io_client, *io, pump_io, [&] { io_client.send_command(s, small.data(), 4096); }, cid)
                    .status,
                0);
            break;
        case 1:
            s.opcode = nvme_cmd_write;
            s.cdw12 = 127;
            ASSERT_EQ(exchange(
                          io_client, *io, pump_io, [&] { io_client.send_command(s, nullptr, 0, 65536); }, cid,
                          nullptr, big.data())
                          .status,
                      0);
            break;
        case 2:
            s.opcode = nvme_cmd_read;
            s.cdw12 = 127;
            ASSERT_EQ(
                exchange(
                    io_client, *io, pump_io, [&] { io_client.send_command(s, nullptr, 0, 65536); }, cid, &got)
                    .status,
                0);
            EXPECT_TRUE(got == big) << "read back differs at command " << i;
            break;
        case 3:
            s.opcode = nvme_cmd_flush;
            ASSERT_EQ(exchange(
                          io_client, *io, pump_io, [&] { io_client.send_command(s); }, cid)
                          .status,
                      0);
            break;
        }
    }
    EXPECT_EQ(g_allocations, 0u) << "heap allocations on the data path over 200 commands";
}

INSTANTIATE_TEST_SUITE_P(Backends, DataPath, ::testing::Values("ram", "aio"),
                         [](const auto &info) { return info.param; });

} // namespace
} // namespace skiff::test
