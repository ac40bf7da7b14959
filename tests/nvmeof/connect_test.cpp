// Fabrics Connect: host identity checks, dynamic controller ids, I/O queue identity.
#include "command_harness.hpp"

#include <cstddef>
#include <cstring>
#include <utility>

namespace skiff::test {
namespace {

constexpr uint32_t kIattrData = 1u << 16;

w::Cqe admin_connect(UnitTarget &t, TestQueue &q, const std::string &subnqn, const std::string &hostnqn,
                     uint16_t cntlid = 0xFFFF, uint16_t sqsize = 31) {
    auto d = connect_data(cntlid, subnqn, hostnqn);
    return q.run(connect_sqe(0, sqsize), sizeof(d), &d);
}

TEST(Connect, AdminConnectGivesDistinctDynamicControllerIds) {
    UnitTarget t;
    TestQueue a(t.target, t.port), b(t.target, t.port);
    auto ca = admin_connect(t, a, kNqn, kHost);
    auto cb = admin_connect(t, b, kNqn, kHost);
    ASSERT_EQ(ca.status, 0);
    ASSERT_EQ(cb.status, 0);
    EXPECT_NE(ca.result & 0xFFFF, 0u);
    EXPECT_NE(ca.result & 0xFFFF, cb.result & 0xFFFF);
    EXPECT_EQ(t.target.controller_count(), 2u);
}

TEST(Connect, MalformedHostNqnIsAnInvalidParameterInTheData) {
    UnitTarget t;
    for (const std::string &bad :
         std::vector<std::string>{"hello", "nqn.20x4-08.org", "nqn.2014-08.", std::string(230, 'a')}) {
        TestQueue q(t.target, t.port);
        auto cqe = admin_connect(t, q, kNqn, bad);
        EXPECT_EQ(sct(cqe), NVME_SCT_CMD_SPECIFIC) << bad;
        EXPECT_EQ(sc(cqe), NVME_SC_CONNECT_INVALID_PARAM) << bad;
        EXPECT_TRUE(dnr(cqe));
        EXPECT_EQ(cqe.result, kIattrData | offsetof(nvmf_connect_data, hostnqn)) << bad;
        EXPECT_FALSE(q.queue.connected());
    }
    EXPECT_EQ(t.target.controller_count(), 0u);
}

TEST(Connect, EmptyHostNqnIsAnAnonymousHostThatOnlyAnyHostSubsystemsAccept) {
    UnitTarget t; // allows any host
    TestQueue anon(t.target, t.port);
    EXPECT_EQ(admin_connect(t, anon, kNqn, "").status, 0);
    EXPECT_EQ(t.target.controller_count(), 1u);

    UnitTarget listed;
    listed.subsys->set_allow_any_host(false);
    listed.subsys->allow_host(kHost);
    TestQueue refused(listed.target, listed.port);
    auto cqe = admin_connect(listed, refused, kNqn, "");
    EXPECT_EQ(sct(cqe), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(sc(cqe), NVME_SC_CONNECT_INVALID_HOST);
    EXPECT_EQ(listed.target.controller_count(), 0u);
}

TEST(Connect, HostNotOnTheAllowListIsInvalidHost) {
    UnitTarget t;
    t.subsys->set_allow_any_host(false);
    t.subsys->allow_host(kHost);
    TestQueue stranger(t.target, t.port), friend_(t.target, t.port);
    auto cqe = admin_connect(t, stranger, kNqn, "nqn.2014-08.org.example:someone-else");
    EXPECT_EQ(sct(cqe), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(sc(cqe), NVME_SC_CONNECT_INVALID_HOST);
    EXPECT_EQ(admin_connect(t, friend_, kNqn, kHost).status, 0);
}

TEST(Connect, UnknownSubsystemStaticCntlidBadSqsizeAndRecfmt) {
    UnitTarget t;
    TestQueue q1(t.target, t.port), q2(t.target, t.port), q3(t.target, t.port), q4(t.target, t.port);
    auto c1 = admin_connect(t, q1, "nqn.2026-11.io.skiff:nope", kHost);
    EXPECT_EQ(sc(c1), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(c1.result, kIattrData | offsetof(nvmf_connect_data, subsysnqn));
    auto c2 = admin_connect(t, q2, kNqn, kHost, 5);
    EXPECT_EQ(sc(c2), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(c2.result, kIattrData | offsetof(nvmf_connect_data, cntlid));
    auto c3 = admin_connect(t, q3, kNqn, kHost, 0xFFFF, 0);
    EXPECT_EQ(sc(c3), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(c3.result, offsetof(w::ConnectCmd, sqsize)); // IATTR 0: in the command
    auto sqe = connect_sqe(0);
    reinterpret_cast<w::ConnectCmd &>(sqe).recfmt = 1;
    auto d = connect_data(0xFFFF, kNqn, kHost);
    auto c4 = q4.run(sqe, sizeof(d), &d);
    EXPECT_EQ(sct(c4), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(sc(c4), NVME_SC_CONNECT_FORMAT);
}

TEST(Connect, CommandsBeforeConnectAreSequenceErrors) {
    UnitTarget t;
    TestQueue q(t.target, t.port);
    auto cqe = q.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096);
    EXPECT_EQ(sc(cqe), NVME_SC_CMD_SEQ_ERROR);
    EXPECT_EQ(sc(q.run(property_sqe(false, w::kPropCap, 0, 1))), NVME_SC_CMD_SEQ_ERROR);
}

TEST(Connect, IoQueueMustMatchTheAdminQueueIdentity) {
    UnitTarget t;
    auto other = std::make_shared<tgt::Subsystem>("nqn.2026-11.io.skiff:other", tgt::SubsystemKind::kNvm);
    ASSERT_TRUE(t.target.add_subsystem(other).ok());
    TestQueue admin(t.target, t.port);
    auto d = connect_data(0xFFFF, kNqn, kHost);
    uint16_t cntlid = static_cast<uint16_t>(admin.run(connect_sqe(0), sizeof(d), &d).result);

    // Not enabled yet (CC.EN = 0): sequence error.
    TestQueue early(t.target, t.port);
    EXPECT_EQ(sc(t.connect_io(early, cntlid)), NVME_SC_CMD_SEQ_ERROR);
    ASSERT_EQ(admin.run(property_sqe(true, w::kPropCc, 1)).status, 0);

    struct Case {
        uint16_t cntlid;
        std::string host;
        uint8_t hostid;
        std::string nqn;
        uint32_t ipo;
    };
    for (const Case &c :
         {Case{uint16_t(cntlid + 100), kHost, 0x42, kNqn, offsetof(nvmf_connect_data, cntlid)},
          Case{cntlid, "nqn.2014-08.org.example:impostor", 0x42, kNqn, offsetof(nvmf_connect_data, hostnqn)},
          Case{cntlid, kHost, 0x43, kNqn, offsetof(nvmf_connect_data, hostid)},
          Case{cntlid, kHost, 0x42, other->nqn(), offsetof(nvmf_connect_data, subsysnqn)}}) {
        TestQueue io(t.target, t.port);
        auto cqe = t.connect_io(io, c.cntlid, 1, c.host, c.hostid, c.nqn);
        EXPECT_EQ(sc(cqe), NVME_SC_CONNECT_INVALID_PARAM);
        EXPECT_EQ(cqe.result, kIattrData | c.ipo);
        EXPECT_FALSE(io.queue.connected());
    }
    TestQueue io1(t.target, t.port), dup(t.target, t.port);
    EXPECT_EQ(t.connect_io(io1, cntlid).status, 0);
    EXPECT_EQ(io1.queue.qid(), 1);
    EXPECT_EQ(sc(t.connect_io(dup, cntlid)), NVME_SC_CMD_SEQ_ERROR); // queue 1 exists
}

TEST(Connect, IoQueueIdAboveTheGrantedCountIsRejected) {
    UnitTarget t;
    TestQueue admin(t.target, t.port);
    uint16_t cntlid = t.bring_up(admin);
    // Number of Queues: ask for 2 (0's based 1).
    auto cqe = admin.run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_NUM_QUEUES, 0, 1 | (1 << 16)));
    ASSERT_EQ(cqe.status, 0);
    EXPECT_EQ(cqe.result, 1u | (1u << 16));
    TestQueue q3(t.target, t.port);
    auto bad = t.connect_io(q3, cntlid, 3);
    EXPECT_EQ(sc(bad), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(bad.result, offsetof(w::ConnectCmd, qid));
}

// NVMe/RDMA names the queue in the RDMA-CM private data, then again in the Connect command.
TEST(Connect, QidOtherThanTheOneTheTransportBoundIsAnInvalidParameterAtQid) {
    UnitTarget t;
    TestQueue wrong_admin(t.target, t.port);
    wrong_admin.transport_qid = 1; // the private data asked for I/O queue 1
    auto bad = admin_connect(t, wrong_admin, kNqn, kHost);
    EXPECT_EQ(sct(bad), NVME_SCT_CMD_SPECIFIC);
    EXPECT_EQ(sc(bad), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(bad.result, offsetof(w::ConnectCmd, qid)); // IATTR 0: the offset is in the command
    EXPECT_FALSE(wrong_admin.queue.connected());
    EXPECT_EQ(t.target.controller_count(), 0u);

    TestQueue admin(t.target, t.port);
    admin.transport_qid = 0;
    uint16_t cntlid = t.bring_up(admin);
    TestQueue io(t.target, t.port);
    io.transport_qid = 2;
    auto bad_io = t.connect_io(io, cntlid, 1);
    EXPECT_EQ(sc(bad_io), NVME_SC_CONNECT_INVALID_PARAM);
    EXPECT_EQ(bad_io.result, offsetof(w::ConnectCmd, qid));
    EXPECT_FALSE(io.queue.connected());
    TestQueue io1(t.target, t.port);
    io1.transport_qid = 1;
    EXPECT_EQ(t.connect_io(io1, cntlid, 1).status, 0); // queue 1 was not claimed by the bad one
    EXPECT_EQ(io1.queue.qid(), 1);
}

// The MDTS a controller advertises: the target's, lowered to what its admin queue's transport
// moves (an RDMA device with a small max message size), never raised above the target's.
TEST(Connect, ControllerMdtsFollowsTheTransportLimit) {
    for (auto [transport_max, mdts] :
         {std::pair<uint32_t, uint8_t>{0, 5}, {64 * 1024, 4}, {4096, 0}, {8u << 20, 5}}) {
        UnitTarget t;
        TestQueue admin(t.target, t.port);
        admin.transport_max_transfer = transport_max;
        t.bring_up(admin);
        ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);
        nvme_id_ctrl id;
        std::memcpy(&id, admin.data(), sizeof(id));
        EXPECT_EQ(id.mdts, mdts) << "transport limit " << transport_max;
    }
}

TEST(Connect, AdminQueueGoneTearsDownTheAssociationAndReconnectWorks) {
    UnitTarget t;
    auto admin = std::make_unique<TestQueue>(t.target, t.port);
    uint16_t old_id = t.bring_up(*admin);
    TestQueue io(t.target, t.port);
    ASSERT_EQ(t.connect_io(io, old_id).status, 0);

    admin->queue.disconnect("test: admin connection dropped");
    // The old I/O queue is still here (its connection is going away), yet the same host
    // reconnects at once with a new association and the same queue id.
    TestQueue admin2(t.target, t.port), io2(t.target, t.port);
    uint16_t new_id = t.bring_up(admin2);
    EXPECT_NE(new_id, old_id);
    EXPECT_EQ(t.connect_io(io2, new_id).status, 0);
    // The old I/O queue notices the teardown and closes; Connect to the old id fails.
    EXPECT_FALSE(io.queue.poll(0));
    TestQueue late(t.target, t.port);
    EXPECT_EQ(sc(t.connect_io(late, old_id)), NVME_SC_CONNECT_INVALID_PARAM);
}

} // namespace
} // namespace skiff::test
