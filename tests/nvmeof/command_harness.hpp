// Test helper: drives the transport-independent command layer directly with SQEs (no socket),
// the way a transport does: prepare -> (host data) -> execute -> queue_response.
#pragma once

#include "skiff/dataplane/ram_device.hpp"
#include "skiff/nvmeof/target/queue.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <nvme/types.h>

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace skiff::test {

namespace tgt = nvmeof::target;
namespace w = nvmeof::wire;

inline const std::string kNqn = "nqn.2026-11.io.skiff:unit";
inline const std::string kHost = "nqn.2014-08.org.nvmexpress:uuid:7d6a4b5e-3f21-4c1a-8b9e-2a0f1e3d4c5b";

// One queue pair with its own completions and request slots.
class TestQueue : public tgt::TransportOps {
  public:
    TestQueue(tgt::Target &target, tgt::Port port = {}) : queue(target, port, *this) {}

    void queue_response(tgt::Request &req) override { completed.push_back(&req); }
    const char *peer_name() const override { return "test"; }
    std::optional<uint16_t> bound_qid() const override { return transport_qid; }
    uint32_t max_transfer() const override { return transport_max_transfer; }

    // Submits one command; `out` is host data (written to the buffer first), the SGL length
    // is `len`. Returns the request (its CQE valid once completed).
    tgt::Request &submit(const w::Sqe &sqe, uint32_t len = 0, const void *out = nullptr) {
        auto &slot = slots.emplace_back();
        slot.buf.assign(128 * 1024, 0xEE);
        slot.req.buf = slot.req.slot_buf = slot.buf.data();
        slot.req.buf_cap = slot.req.slot_cap = static_cast<uint32_t>(slot.buf.size());
        slot.req.cmd = sqe;
        slot.req.data_len = len;
        if (out) std::memcpy(slot.buf.data(), out, len);
        if (queue.prepare(slot.req))
            queue.execute(slot.req);
        else
            queue.complete(slot.req);
        return slot.req;
    }
    // A command the transport refuses before parsing it (e.g. its SGL), with `status`.
    w::Cqe refuse(const w::Sqe &sqe, uint16_t status) {
        auto &slot = slots.emplace_back();
        slot.req.cmd = sqe;
        queue.fail_before_prepare(slot.req, status);
        queue.complete(slot.req);
        return slot.req.cqe;
    }
    // Submits and expects exactly this command to complete now; returns its CQE.
    w::Cqe run(const w::Sqe &sqe, uint32_t len = 0, const void *out = nullptr) {
        size_t before = completed.size();
        auto &req = submit(sqe, len, out);
        EXPECT_EQ(completed.size(), before + 1) << "command did not complete";
        EXPECT_EQ(completed.back(), &req);
        return req.cqe;
    }
    bool is_done(const tgt::Request &req) const {
        for (auto *r : completed)
            if (r == &req) return true;
        return false;
    }
    // The data buffer of the last submitted command.
    const uint8_t *data() const { return slots.back().buf.data(); }

    struct Slot {
        tgt::Request req;
        std::vector<uint8_t> buf;
    };
    std::deque<Slot> slots;
    std::vector<tgt::Request *> completed;
    // What a transport may impose (RDMA: the private data's QID, the device's message size).
    std::optional<uint16_t> transport_qid;
    uint32_t transport_max_transfer = 0;
    tgt::Queue queue;
};

inline w::Sqe connect_sqe(uint16_t qid, uint16_t sqsize = 31, uint32_t kato = 0) {
    w::Sqe sqe{};
    auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
    c.opcode = w::kFabricsOpcode;
    c.fctype = w::kFctConnect;
    c.qid = qid;
    c.sqsize = sqsize;
    c.kato = kato;
    return sqe;
}

inline nvmf_connect_data connect_data(uint16_t cntlid, const std::string &subnqn, const std::string &hostnqn,
                                      uint8_t hostid = 0x42) {
    nvmf_connect_data d{};
    std::memset(d.hostid, hostid, 16);
    d.cntlid = cntlid;
    std::strncpy(d.subsysnqn, subnqn.c_str(), sizeof(d.subsysnqn) - 1);
    std::strncpy(d.hostnqn, hostnqn.c_str(), sizeof(d.hostnqn) - 1);
    return d;
}

inline w::Sqe property_sqe(bool set, uint32_t offset, uint64_t value = 0, uint8_t attrib = 0) {
    w::Sqe sqe{};
    auto &p = reinterpret_cast<w::PropertyCmd &>(sqe);
    p.opcode = w::kFabricsOpcode;
    p.fctype = set ? w::kFctPropertySet : w::kFctPropertyGet;
    p.offset = offset;
    p.value = value;
    p.attrib = attrib;
    return sqe;
}

inline w::Sqe admin_sqe(uint8_t opcode, uint32_t cdw10 = 0, uint32_t nsid = 0, uint32_t cdw11 = 0) {
    w::Sqe s{};
    s.opcode = opcode;
    s.nsid = nsid;
    s.cdw10 = cdw10;
    s.cdw11 = cdw11;
    return s;
}

inline w::Sqe io_sqe(uint8_t opcode, uint64_t slba, uint32_t nlb, uint32_t nsid = 1) {
    w::Sqe s{};
    s.opcode = opcode;
    s.nsid = nsid;
    s.cdw10 = static_cast<uint32_t>(slba);
    s.cdw11 = static_cast<uint32_t>(slba >> 32);
    s.cdw12 = nlb - 1;
    return s;
}

inline w::Sqe get_log_sqe(uint8_t lid, uint32_t len, uint32_t nsid = 0xFFFFFFFF, bool rae = false) {
    uint32_t numd = len / 4 - 1;
    w::Sqe s = admin_sqe(nvme_admin_get_log_page, lid | (rae ? 1u << 15 : 0) | ((numd & 0xFFFF) << 16), nsid,
                         numd >> 16);
    return s;
}

inline uint8_t sc(const w::Cqe &c) {
    return w::Status::sc(c.status);
}
inline uint8_t sct(const w::Cqe &c) {
    return w::Status::sct(c.status);
}
inline bool dnr(const w::Cqe &c) {
    return w::Status::dnr(c.status);
}

// A target with one subsystem and one 8 MiB RAM namespace (512-byte blocks unless told), or
// one namespace on the device given.
struct UnitTarget {
    explicit UnitTarget(uint32_t block_size = 512, uint64_t size = 8ull << 20) {
        auto dev = dataplane::RamDevice::create(size);
        EXPECT_TRUE(dev.ok());
        init(*dev, block_size);
    }
    explicit UnitTarget(std::shared_ptr<tgt::BlockDevice> dev, uint32_t block_size = 512) {
        init(std::move(dev), block_size);
    }
    void init(std::shared_ptr<tgt::BlockDevice> dev, uint32_t block_size) {
        subsys = std::make_shared<tgt::Subsystem>(
            kNqn, tgt::SubsystemKind::kNvm, tgt::SubsystemIdentity{"SN-UNIT-7", "skiff unit model", "1.2.3"});
        device = std::move(dev);
        ns = std::make_shared<tgt::Namespace>(1, block_size, device, tgt::derive_namespace_ids(kNqn, 1));
        EXPECT_TRUE(subsys->add_namespace(ns).ok());
        EXPECT_TRUE(target.add_subsystem(subsys).ok());
        port = target.add_port({0, "tcp", "127.0.0.1", "4420", false, std::nullopt});
    }

    // Connects and enables an admin queue; returns the controller id.
    uint16_t bring_up(TestQueue &admin, uint32_t kato = 0, const std::string &host = kHost) {
        auto data = connect_data(0xFFFF, kNqn, host);
        auto cqe = admin.run(connect_sqe(0, 31, kato), sizeof(data), &data);
        EXPECT_EQ(cqe.status, 0);
        EXPECT_EQ(admin.run(property_sqe(true, w::kPropCc, 1)).status, 0);
        return static_cast<uint16_t>(cqe.result);
    }
    w::Cqe connect_io(TestQueue &io, uint16_t cntlid, uint16_t qid = 1, const std::string &host = kHost,
                      uint8_t hostid = 0x42, const std::string &nqn = kNqn) {
        auto data = connect_data(cntlid, nqn, host, hostid);
        return io.run(connect_sqe(qid, 127), sizeof(data), &data);
    }

    tgt::Target target;
    std::shared_ptr<tgt::Subsystem> subsys;
    std::shared_ptr<tgt::BlockDevice> device;
    std::shared_ptr<tgt::Namespace> ns;
    tgt::Port port;
};

} // namespace skiff::test
