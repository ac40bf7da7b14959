// Connecting to skiff-target and what Identify, properties and features then show.
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"
#include "skiff/nvmeof/host/nvme_status.hpp"

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

using integration_connect = TargetTest;

TEST_F(integration_connect, IdentifyShowsSerialModelAndSizeFromTheCommandLine) {
    start_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    EXPECT_FALSE(ctrl->is_discovery());
    EXPECT_EQ(trim_field(ctrl->identity().sn, sizeof(ctrl->identity().sn)), kSerial);
    EXPECT_EQ(trim_field(ctrl->identity().mn, sizeof(ctrl->identity().mn)), kModel);
    EXPECT_EQ(trim_field(ctrl->identity().subnqn, sizeof(ctrl->identity().subnqn)), kNqn);
    EXPECT_EQ(ctrl->identity().cntlid, ctrl->cntlid());

    Result<std::vector<uint32_t>> active = ctrl->active_namespaces();
    ASSERT_OK(active);
    ASSERT_EQ(*active, std::vector<uint32_t>{1});

    Result<nvme_id_ns> ns = ctrl->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->nsze, kSizeBytes / kBlock);
    const uint8_t format = ns->flbas & 0xF;
    EXPECT_EQ(1u << ns->lbaf[format].ds, kBlock);
}

TEST_F(integration_connect, BlockSizeAndSizeOptionsAreHonoured) {
    start_target({"--block-size", "4096", "--size", "32MiB"});
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);
    Result<nvme_id_ns> ns = ctrl->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->nsze, (32ull << 20) / 4096);
    EXPECT_EQ(1u << ns->lbaf[ns->flbas & 0xF].ds, 4096u);
}

TEST_F(integration_connect, ControllerIsReadyAndKeepAliveAndFeaturesWork) {
    start_target();
    ConnectOptions o = options();
    o.kato_ms = 15000;
    o.auto_keep_alive = false;
    auto ctrl = connect(o);
    ASSERT_NE(ctrl, nullptr);

    Result<uint64_t> csts = ctrl->property_get(wire::kPropCsts, false);
    ASSERT_OK(csts);
    EXPECT_EQ(*csts & cmd::kCstsRdy, cmd::kCstsRdy);
    Result<uint64_t> vs = ctrl->property_get(wire::kPropVs, false);
    ASSERT_OK(vs);
    EXPECT_GE(*vs, 0x10300u) << "NVMe-oF needs version 1.3 or later";

    ASSERT_OK(ctrl->keep_alive());
    Result<uint32_t> kato = ctrl->get_features(NVME_FEAT_FID_KATO);
    ASSERT_OK(kato);
    EXPECT_EQ(*kato, 15000u) << "KATO reported as connected";

    Result<uint32_t> queues = ctrl->get_features(NVME_FEAT_FID_NUM_QUEUES);
    ASSERT_OK(queues);
    EXPECT_GE((*queues & 0xFFFF) + 1, 1u);
}

TEST_F(integration_connect, ShutdownCompletesAndTheTargetStaysUp) {
    start_target();
    auto first = connect(options());
    ASSERT_NE(first, nullptr);
    ASSERT_OK(first->shutdown());
    first.reset();
    auto second = connect(options());
    ASSERT_NE(second, nullptr);
    EXPECT_NE(second->cntlid(), 0xFFFF);
}

TEST_F(integration_connect, UnknownSubsystemGetsConnectInvalidParameters) {
    start_target();
    QueueConfig qc;
    qc.port = io_port_;
    qc.qid = 0;
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
    ASSERT_OK(q);
    Result<Completion> c =
        fabrics_connect(**q, HostIdentity::generate(), "nqn.2026-11.io.skiff:no-such-subsystem", 0xFFFF, 0);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_CMD_SPECIFIC) << describe_status(c->status(), true);
    EXPECT_EQ(c->sc(), NVME_SC_CONNECT_INVALID_PARAM) << describe_status(c->status(), true);
    // Which field was wrong, in the layout Linux host and nvmet use: offset of SUBNQN (256) in
    // bits 15:0, bit 16 set because the field is in the Connect data.
    EXPECT_EQ(c->cqe.result & 0xFFFFFFFF, (1u << 16) | 256u);
}

TEST_F(integration_connect, IoQueueOfAnotherHostCannotJoinAController) {
    start_target();
    auto ctrl = connect(options());
    ASSERT_NE(ctrl, nullptr);

    QueueConfig qc;
    qc.port = io_port_;
    qc.qid = 2; // the controller granted one I/O queue to its host; a second host tries to add one
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
    ASSERT_OK(q);
    (*q)->set_in_capsule_limit(8192);
    Result<Completion> c = fabrics_connect(**q, HostIdentity::generate(), kNqn, ctrl->cntlid(), 0);
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_CMD_SPECIFIC) << describe_status(c->status(), true);
    EXPECT_EQ(c->sc(), NVME_SC_CONNECT_INVALID_PARAM) << describe_status(c->status(), true);
    EXPECT_EQ(c->cqe.result & 0xFFFFFFFF, (1u << 16) | 512u)
        << "IPO names HOSTNQN (byte 512 of the Connect data)";

    std::vector<uint8_t> buf(kBlock);
    ASSERT_OK(ctrl->read(0, 1, 0, 1, buf.data(), kBlock)); // the rightful host is unaffected
}

TEST_F(integration_connect, HostThatDropsItsConnectionsReconnectsAtOnce) {
    // The reconnect race of the checklist: the old association may still be tearing down when
    // the same host connects again with the same queue IDs; that must just work, every time.
    start_target();
    ConnectOptions o = options();
    o.io_queues = 2;
    for (int round = 0; round < 5; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        auto ctrl = connect(o);
        ASSERT_NE(ctrl, nullptr);
        std::vector<uint8_t> buf(kBlock);
        ASSERT_OK(ctrl->read(1, 1, 0, 1, buf.data(), kBlock));
        // Drop every connection without a shutdown, like a host that crashed or lost its path.
        for (size_t i = 0; i < ctrl->io_queue_count(); ++i) ctrl->io_queue(i).close();
        ctrl->admin_queue().close();
    }
}

namespace {

// Connect of an admin queue with the given identity; the completion.
Result<Completion> connect_admin_as(uint16_t port, const HostIdentity &host) {
    QueueConfig qc;
    qc.port = port;
    qc.qid = 0;
    Result<std::unique_ptr<TcpQueue>> q = TcpQueue::connect(qc);
    if (!q) return q.error();
    return fabrics_connect(**q, host, kNqn, 0xFFFF, 0);
}

HostIdentity anonymous_host() {
    HostIdentity h = HostIdentity::generate();
    h.hostnqn.clear(); // what SPDK's initiator sends by default
    return h;
}

} // namespace

TEST_F(integration_connect, EmptyHostNqnIsAcceptedWhereAnyHostMayConnect) {
    start_target(); // no --allow-host: any host
    Result<Completion> c = connect_admin_as(io_port_, anonymous_host());
    ASSERT_OK(c);
    EXPECT_EQ(c->status(), 0) << describe_status(c->status(), true);
    EXPECT_NE(c->cqe.result & 0xFFFF, 0u) << "a controller ID";
}

TEST_F(integration_connect, EmptyHostNqnIsRefusedByASubsystemWithAHostList) {
    const HostIdentity listed = HostIdentity::generate();
    start_target({"--allow-host", listed.hostnqn});
    Result<Completion> c = connect_admin_as(io_port_, anonymous_host());
    ASSERT_OK(c);
    EXPECT_EQ(c->sct(), NVME_SCT_CMD_SPECIFIC) << describe_status(c->status(), true);
    EXPECT_EQ(c->sc(), NVME_SC_CONNECT_INVALID_HOST) << describe_status(c->status(), true);
    // A malformed NQN is still a bad parameter, and the listed host still gets in.
    HostIdentity malformed = HostIdentity::generate();
    malformed.hostnqn = "not-an-nqn";
    Result<Completion> bad = connect_admin_as(io_port_, malformed);
    ASSERT_OK(bad);
    EXPECT_EQ(bad->sc(), NVME_SC_CONNECT_INVALID_PARAM) << describe_status(bad->status(), true);
    EXPECT_EQ(bad->cqe.result & 0xFFFFFFFF, (1u << 16) | 512u) << "IPO names HOSTNQN";
    Result<Completion> ok = connect_admin_as(io_port_, listed);
    ASSERT_OK(ok);
    EXPECT_EQ(ok->status(), 0) << describe_status(ok->status(), true);
}
