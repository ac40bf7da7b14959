// Fuzz harness: skiff's initiator receive path (host::TcpQueue over host::RxStream) fed by a
// hostile target. A real loopback TCP connection: the harness's "target" thread accepts it,
// reads the ICReq, writes the fuzzer's bytes (starting with what should be an ICResp) and closes
// its side; the host queue negotiates, submits a read (C2HData into a caller buffer), a write
// (R2T + H2CData) and a command without data, and polls until the stream ends or the queue fails.
//
// Input: [options: bit 0 header digest, bit 1 data digest, bits 2-4 HPDA][the target's bytes].
// Properties: no crash, no sanitizer report (the read buffer is an exact heap allocation: C2H
// data placed past its end is caught), every completion names a CID that was outstanding.
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "skiff/nvmeof/host/tcp_queue.hpp"

#include <nvme/types.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using namespace skiff;
namespace host = nvmeof::host;
namespace w = nvmeof::wire;

namespace {

struct Listener {
    int fd = -1;
    uint16_t port = 0;
    Listener() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in sa{};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof(sa);
        if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) != 0 ||
            ::listen(fd, 4) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr *>(&sa), &len) != 0)
            std::abort();
        port = ntohs(sa.sin_port);
    }
};

Listener &listener() {
    static Listener l;
    return l;
}

// The hostile target: accept, take the ICReq, send the bytes, close our sending side, then
// swallow whatever the host sends until it closes.
void hostile_target(std::span<const uint8_t> bytes) {
    int c = ::accept4(listener().fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    uint8_t icreq[128];
    size_t got = 0;
    while (got < sizeof(icreq)) {
        ssize_t n = ::recv(c, icreq + got, sizeof(icreq) - got, 0);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    size_t sent = 0;
    while (sent < bytes.size()) {
        ssize_t n = ::send(c, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
    }
    ::shutdown(c, SHUT_WR);
    uint8_t sink[16384];
    while (::recv(c, sink, sizeof(sink), 0) > 0) {
    }
    ::close(c);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool quiet = (fuzz::quiet_logs(), true);
    (void)quiet;
    fuzz::Input in(data, size);
    uint8_t opts = in.u8();
    auto bytes = in.rest();
    std::thread target(hostile_target, bytes);

    host::QueueConfig cfg;
    cfg.port = listener().port;
    cfg.queue_size = 8;
    cfg.header_digest = opts & 1;
    cfg.data_digest = opts & 2;
    cfg.hpda = (opts >> 2) & 7;
    cfg.timeout = std::chrono::milliseconds(2000); // the target always closes: never reached
    auto q = host::TcpQueue::connect(cfg);
    const bool trace = std::getenv("SKIFF_FUZZ_LOG") != nullptr;
    if (!q && trace) std::fprintf(stderr, "host_rx_stream: connect failed: %s\n", q.error().message.c_str());
    if (q) {
        auto &queue = **q;
        std::vector<uint8_t> rbuf(12 * 1024), wbuf(10 * 1024, 0x5c);
        bool outstanding[65536] = {};
        w::Sqe rd{};
        rd.opcode = nvme_cmd_read;
        rd.nsid = 1;
        rd.cdw12 = 23;
        w::Sqe wr = rd;
        wr.opcode = nvme_cmd_write;
        wr.cdw12 = 19;
        w::Sqe flush{};
        flush.opcode = nvme_cmd_flush;
        flush.nsid = 1;
        queue.set_in_capsule_limit(opts & 0x20 ? 8192 : 0); // the write by R2T, or in the capsule
        for (auto r : {queue.submit(rd, host::DataDir::kControllerToHost, rbuf.data(), rbuf.size()),
                       queue.submit(wr, host::DataDir::kHostToController, wbuf.data(), wbuf.size()),
                       queue.submit(flush, host::DataDir::kNone, nullptr, 0)})
            if (r) outstanding[*r] = true;
        for (int i = 0; i < 64 && !queue.failed() && queue.outstanding() > 0; ++i) {
            auto n = queue.poll(std::chrono::milliseconds(500));
            host::Completion c;
            while (queue.pop_completion(c)) {
                SKIFF_FUZZ_CHECK(outstanding[c.cid]);
                outstanding[c.cid] = false;
                if (trace) std::fprintf(stderr, "host_rx_stream: cid %u status %#x\n", c.cid, c.status());
            }
            if (!n) break;
        }
        if (trace && queue.failed())
            std::fprintf(stderr, "host_rx_stream: queue failed: %s\n", queue.failure().message.c_str());
        queue.close();
    }
    target.join();
    return 0;
}
