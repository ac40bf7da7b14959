// Fuzz harness: the NVMe/TCP receive path of a target connection (TcpQueuePair), fed any byte
// stream in any split, under any transport limits, against RAM namespaces: ICReq, command capsules
// with in-capsule data, H2CData, header and data digests, TermReq, and everything malformed in
// between.
//
// Input: [split seed: 2 bytes][limits: 6 bytes, fuzz_limits.hpp][the byte stream the host sends].
// The limits (in-capsule data size 0..1 MiB, MDTS 4 KiB..1 MiB, queue depths, zero-copy reads) make
// a fresh target for the input (cheap: RAM namespaces are lazily backed mappings), so every input
// replays alone and none inherits another's state. The digests are whatever the stream's ICReq asks.
// The stream goes into one end of a real socketpair in chunks whose sizes the seed draws (1 byte to
// 4 KiB), the connection reading the other end; the target's answers are read and dropped. At the
// end the host side closes.
// A resident controller (cntlid 1, made before the stream) outlives the connection, so "Connect
// I/O queue to controller 1" in a stream reaches the I/O commands.
// Properties: no crash, no sanitizer report, and once the connection is gone every controller
// it created is gone too.
#include "fuzz_input.hpp"
#include "fuzz_limits.hpp"
#include "fuzz_queue.hpp"
#include "fuzz_target.hpp"
#include "tcp/tcp_queue_pair.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <span>

using namespace skiff;

namespace {

// A controller the stream did not make (cntlid 1, no keep-alive), so an I/O queue Connect naming
// it succeeds and its commands reach the I/O path; the admin queue of the stream's own association
// is made and torn down within the input.
void connect_resident_admin(fuzz::FuzzTarget &ft, fuzz::FuzzQueue &q) {
    uint16_t cntlid = 0;
    int sqsize = std::min<int>(7, ft.target.limits().max_admin_queue_depth - 1);
    if (fuzz::connect(q, 0, 0xFFFF, fuzz::kSubNqn, cntlid, sqsize) != 0 || cntlid != 1 ||
        fuzz::enable(q) != 0)
        std::abort();
}

void drain(int fd) {
    uint8_t sink[16384];
    while (::recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
    }
}

// One round of the connection's work, as a poll group runs it.
void turn(nvmeof::tcp::TcpQueuePair &qp, int host_fd, uint64_t &now_ms) {
    qp.on_readable();
    for (int i = 0; i < 8 && qp.progress(); ++i) {
    }
    qp.poll(now_ms += 10);
    drain(host_fd);
}

// Sends the stream to a new connection, then closes the host's side and lets the connection end.
void run_stream(fuzz::FuzzTarget &ft, std::span<const uint8_t> stream, uint32_t seed) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    uint64_t now_ms = 1000;
    {
        auto qp = std::make_unique<nvmeof::tcp::TcpQueuePair>(fds[0], "fuzz", ft.target, ft.port);
        size_t pos = 0;
        while (pos < stream.size() && !qp->finished()) {
            seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5; // xorshift32
            size_t chunk = 1 + (seed % 4096);
            if (seed & 0x80000000u) chunk = 1 + (seed % 64); // many small splits too
            if (chunk > stream.size() - pos) chunk = stream.size() - pos;
            ssize_t n = ::send(fds[1], stream.data() + pos, chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0) pos += static_cast<size_t>(n);
            if (n < 0 && errno != EAGAIN) break;
            turn(*qp, fds[1], now_ms);
        }
        // The host goes away: the connection sees EOF and tears its association down.
        ::shutdown(fds[1], SHUT_WR);
        for (int i = 0; i < 4 && !qp->finished(); ++i) turn(*qp, fds[1], now_ms);
        qp->close("fuzz input done");
        SKIFF_FUZZ_CHECK(qp->finished());
    } // the connection closes fds[0]
    ::close(fds[1]);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Input in(data, size);
    uint32_t seed = in.u16() | 0x10000u;
    fuzz::FuzzTarget ft(fuzz::draw_limits(in));
    auto stream = in.rest();
    {
        fuzz::FuzzQueue resident(ft.target, ft.port);
        connect_resident_admin(ft, resident);
        run_stream(ft, stream, seed);
        SKIFF_FUZZ_CHECK(ft.target.controller_count() == 1); // only the resident one
    }
    SKIFF_FUZZ_CHECK(ft.target.controller_count() == 0);
    return 0;
}
