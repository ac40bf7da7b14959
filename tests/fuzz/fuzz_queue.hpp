// A queue driven without a transport, as a transport drives one: prepare -> (host data) ->
// execute -> complete; shared by the harnesses that need a controller (command_execution runs
// its SQEs through it, tcp_target_receive keeps a resident admin queue its I/O queues join).
#pragma once

#include "fuzz_input.hpp"
#include "fuzz_target.hpp"
#include "skiff/nvmeof/target/queue.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <vector>

namespace skiff::fuzz {

namespace w = nvmeof::wire;

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
        s.buf.assign(queue.target().limits().max_transfer, 0);
        s.req.buf = s.req.slot_buf = s.buf.data();
        s.req.buf_cap = s.req.slot_cap = static_cast<uint32_t>(s.buf.size());
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

inline w::Sqe connect_sqe(uint16_t qid, uint16_t sqsize) {
    w::Sqe sqe{};
    auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
    c.opcode = w::kFabricsOpcode;
    c.fctype = w::kFctConnect;
    c.qid = qid;
    c.sqsize = sqsize;
    return sqe;
}

// sqsize (0's based): by default 7 for an admin queue, 15 for an I/O queue.
inline uint16_t connect(FuzzQueue &q, uint16_t qid, uint16_t cntlid, const std::string &nqn, uint16_t &result,
                        int sqsize = -1) {
    nvmf_connect_data d{};
    std::memset(d.hostid, 0x5a, 16);
    d.cntlid = cntlid;
    std::strncpy(d.subsysnqn, nqn.c_str(), sizeof(d.subsysnqn) - 1);
    std::strncpy(d.hostnqn, kHostNqn.c_str(), sizeof(d.hostnqn) - 1);
    if (sqsize < 0) sqsize = qid == 0 ? 7 : 15;
    auto &req = q.submit(connect_sqe(qid, static_cast<uint16_t>(sqsize)), sizeof(d),
                         {reinterpret_cast<uint8_t *>(&d), sizeof(d)});
    result = static_cast<uint16_t>(req.cqe.result);
    return req.cqe.status;
}

inline uint16_t enable(FuzzQueue &q) {
    w::Sqe sqe{};
    auto &p = reinterpret_cast<w::PropertyCmd &>(sqe);
    p.opcode = w::kFabricsOpcode;
    p.fctype = w::kFctPropertySet;
    p.offset = w::kPropCc;
    p.value = 1 | (6u << 16) | (4u << 20); // EN, IOSQES 6, IOCQES 4
    return q.run(sqe);
}

} // namespace skiff::fuzz
