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
#include "skiff/nvmeof/target/queue.hpp"

#include <nvme/types.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

using namespace skiff;
namespace w = nvmeof::wire;
namespace tgt = nvmeof::target;

namespace {

fuzz::FuzzTarget &the_target() {
    static fuzz::FuzzTarget t;
    return t;
}

class FuzzQueue : public tgt::TransportOps {
  public:
    FuzzQueue(tgt::Target &target, const tgt::Port &port) : queue(target, port, *this) {}
    ~FuzzQueue() override {
        queue.disconnect("fuzz input done");
        for (auto &s : slots)
            if (!s.done) queue.release(s.req); // parked (an AER) when the queue went
    }
    void queue_response(tgt::Request &req) override {
        for (auto &s : slots)
            if (&s.req == &req) {
                SKIFF_FUZZ_CHECK(!s.done); // completed once
                s.done = true;
            }
        SKIFF_FUZZ_CHECK(req.cqe.cid == req.cmd.cid);
    }
    const char *peer_name() const override { return "fuzz"; }

    tgt::Request &submit(const w::Sqe &sqe, uint32_t len, std::span<const uint8_t> out) {
        auto &s = slots.emplace_back();
        s.buf.assign(the_target().target.limits().max_transfer, 0);
        s.req.buf = s.buf.data();
        s.req.buf_cap = static_cast<uint32_t>(s.buf.size());
        s.req.cmd = sqe;
        s.req.data_len = len;
        if (!out.empty()) std::memcpy(s.buf.data(), out.data(), std::min<size_t>(out.size(), len));
        if (queue.prepare(s.req))
            queue.execute(s.req);
        else
            queue.complete(s.req);
        if (queue.has_deferred()) queue.run_deferred();
        return s.req;
    }
    uint16_t run(const w::Sqe &sqe, uint32_t len = 0, const void *out = nullptr) {
        auto &req = submit(sqe, len, {static_cast<const uint8_t *>(out), out ? len : 0});
        return req.cqe.status;
    }

    struct Slot {
        tgt::Request req;
        std::vector<uint8_t> buf;
        bool done = false;
    };
    std::deque<Slot> slots;
    tgt::Queue queue;
};

w::Sqe connect_sqe(uint16_t qid, uint16_t sqsize) {
    w::Sqe sqe{};
    auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
    c.opcode = w::kFabricsOpcode;
    c.fctype = w::kFctConnect;
    c.qid = qid;
    c.sqsize = sqsize;
    return sqe;
}

uint16_t connect(FuzzQueue &q, uint16_t qid, uint16_t cntlid, const std::string &nqn, uint16_t &result) {
    nvmf_connect_data d{};
    std::memset(d.hostid, 0x5a, 16);
    d.cntlid = cntlid;
    std::strncpy(d.subsysnqn, nqn.c_str(), sizeof(d.subsysnqn) - 1);
    std::strncpy(d.hostnqn, fuzz::kHostNqn.c_str(), sizeof(d.hostnqn) - 1);
    auto &req = q.submit(connect_sqe(qid, qid == 0 ? 7 : 15), sizeof(d),
                         {reinterpret_cast<uint8_t *>(&d), sizeof(d)});
    result = static_cast<uint16_t>(req.cqe.result);
    return req.cqe.status;
}

uint16_t enable(FuzzQueue &q) {
    w::Sqe sqe{};
    auto &p = reinterpret_cast<w::PropertyCmd &>(sqe);
    p.opcode = w::kFabricsOpcode;
    p.fctype = w::kFctPropertySet;
    p.offset = w::kPropCc;
    p.value = 1 | (6u << 16) | (4u << 20); // EN, IOSQES 6, IOCQES 4
    return q.run(sqe);
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
