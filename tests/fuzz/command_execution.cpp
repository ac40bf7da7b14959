// Fuzz harness: command execution without a transport. 64-byte SQEs plus optional host data go
// through Queue::prepare / execute (as a transport hands them over) on an admin queue, an I/O
// queue, a discovery controller's admin queue, or a queue that never connected: every opcode,
// CNS value, log page, feature, SGL descriptor and fused pair the fuzzer can build.
//
// Input: [mode][command]...  mode % 4: 0 admin, 1 I/O (queue 1 of a live controller),
// 2 discovery, 3 unconnected. A command: [SQE: 64 bytes][data length: 2 bytes][host data:
// min(length, rest) bytes; the remainder of the length reads as zeros].
// Properties: every completed CQE carries its command's CID and the queue's SQ id; nothing
// touches a data buffer past its end (each is an exact heap allocation of MDTS bytes, ASan
// watches its edges); after disconnecting, every controller is gone.
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "fuzz_queue.hpp"

#include <nvme/types.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

using namespace skiff;
using fuzz::FuzzQueue;
namespace w = nvmeof::wire;
namespace tgt = nvmeof::target;

namespace {

fuzz::FuzzTarget &the_target() {
    static fuzz::FuzzTarget t;
    return t;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &ft = the_target();
    fuzz::Input in(data, size);
    uint8_t mode = in.u8() % 4;
    {
        FuzzQueue admin(ft.target, ft.port);
        std::unique_ptr<FuzzQueue> io;
        FuzzQueue *q = &admin;
        uint16_t cntlid = 0;
        if (mode != 3) {
            const std::string &nqn = mode == 2 ? std::string(tgt::kDiscoveryNqn) : fuzz::kSubNqn;
            SKIFF_FUZZ_CHECK(connect(admin, 0, 0xFFFF, nqn, cntlid) == 0);
            SKIFF_FUZZ_CHECK(enable(admin) == 0);
        }
        if (mode == 1) {
            io = std::make_unique<FuzzQueue>(ft.target, ft.port);
            uint16_t ignored;
            SKIFF_FUZZ_CHECK(connect(*io, 1, cntlid, fuzz::kSubNqn, ignored) == 0);
            q = io.get();
        }
        uint64_t now_ms = 1000;
        for (int n = 0; n < 64 && in.remaining() >= sizeof(w::Sqe); ++n) {
            w::Sqe sqe;
            std::memcpy(&sqe, in.bytes(sizeof(sqe)).data(), sizeof(sqe));
            uint32_t len = in.u16() % (ft.target.limits().max_transfer + 1);
            auto out = in.bytes(len);
            auto &req = q->submit(sqe, len, out);
            if (q->slots.back().done && q->queue.connected())
                SKIFF_FUZZ_CHECK(req.cqe.sq_id == q->queue.qid());
            if (!q->queue.poll(now_ms += 50)) break;
        }
        io.reset(); // I/O queue first, as a host tears down
    }
    SKIFF_FUZZ_CHECK(ft.target.controller_count() == 0);
    return 0;
}
