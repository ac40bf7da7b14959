// What an RDMA listener looks like to hosts through the command layer: its discovery log
// entries (TRTYPE RDMA, RDMA transport specific subtype) and Identify Controller's SGL support.
#include "command_harness.hpp"

namespace skiff::test {
namespace {

tgt::Port rdma_port(UnitTarget &t) {
    tgt::Port p;
    p.trtype = "rdma";
    p.traddr = "192.168.77.1";
    p.trsvcid = "4420";
    return t.target.add_port(p);
}

TEST(RdmaDiscovery, RdmaListenerEntriesCarryTheRdmaSubtype) {
    UnitTarget t;
    tgt::Port port = rdma_port(t);
    TestQueue q(t.target, port);
    auto d = connect_data(0xFFFF, tgt::kDiscoveryNqn, kHost);
    ASSERT_EQ(q.run(connect_sqe(0), sizeof(d), &d).status, 0);
    ASSERT_EQ(q.run(property_sqe(true, w::kPropCc, 1)).status, 0);
    ASSERT_EQ(q.run(get_log_sqe(NVME_LOG_LID_DISCOVER, 4096, 0), 4096).status, 0);
    const auto &log = *reinterpret_cast<const nvmf_discovery_log *>(q.data());
    int rdma_entries = 0;
    for (uint64_t i = 0; i < log.numrec; ++i) {
        const auto &e = log.entries[i];
        if (std::string(e.traddr) != "192.168.77.1") {
            EXPECT_EQ(e.trtype, NVMF_TRTYPE_TCP); // the harness' own TCP port
            continue;
        }
        ++rdma_entries;
        EXPECT_EQ(e.trtype, NVMF_TRTYPE_RDMA);
        EXPECT_EQ(e.adrfam, NVMF_ADDR_FAMILY_IP4);
        EXPECT_EQ(std::string(e.trsvcid), "4420");
        EXPECT_EQ(e.portid, port.id);
        EXPECT_EQ(e.tsas.rdma.qptype, NVMF_RDMA_QPTYPE_CONNECTED);
        EXPECT_EQ(e.tsas.rdma.prtype, NVMF_RDMA_PRTYPE_NOT_SPECIFIED);
        EXPECT_EQ(e.tsas.rdma.cms, NVMF_RDMA_CMS_RDMA_CM);
    }
    // The I/O subsystem on the RDMA port and the current discovery subsystem (on this port).
    EXPECT_EQ(rdma_entries, 2);
}

TEST(RdmaDiscovery, IdentifyAdvertisesKeyedSglsOnRdmaOnly) {
    UnitTarget t;
    auto sgls = [&](const tgt::Port &port) {
        TestQueue admin(t.target, port);
        t.bring_up(admin);
        auto cqe = admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), sizeof(nvme_id_ctrl));
        EXPECT_EQ(cqe.status, 0);
        return reinterpret_cast<const nvme_id_ctrl *>(admin.data())->sgls;
    };
    uint32_t rdma = sgls(rdma_port(t));
    EXPECT_TRUE(rdma & (1u << 2)) << "keyed SGL data blocks";
    EXPECT_TRUE(rdma & (1u << 20)) << "SGL offsets (in-capsule data)";
    EXPECT_EQ(rdma & 3u, 1u);
    EXPECT_FALSE(sgls(t.port) & (1u << 2));
}

} // namespace
} // namespace skiff::test
