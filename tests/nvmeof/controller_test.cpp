// Properties, the CC.EN / CC.SHN handshakes, and Identify contents.
#include "command_harness.hpp"

namespace skiff::test {
namespace {

std::string trimmed(const char *field, size_t n) {
    std::string s(field, n);
    return s.substr(0, s.find_last_not_of(' ') + 1);
}

TEST(Properties, CapVsAndTheEnableAndShutdownHandshakes) {
    UnitTarget t;
    TestQueue admin(t.target, t.port);
    auto d = connect_data(0xFFFF, kNqn, kHost);
    ASSERT_EQ(admin.run(connect_sqe(0), sizeof(d), &d).status, 0);

    auto cap = admin.run(property_sqe(false, w::kPropCap, 0, 1));
    ASSERT_EQ(cap.status, 0);
    EXPECT_EQ(cap.result & 0xFFFF, 127u);    // MQES: 128 entries
    EXPECT_TRUE(cap.result & (1ull << 16));  // CQR
    EXPECT_TRUE(cap.result & (1ull << 37));  // CSS: NVM command set
    EXPECT_EQ((cap.result >> 48) & 0xF, 0u); // MPSMIN 4 KiB
    EXPECT_EQ(admin.run(property_sqe(false, w::kPropVs)).result, 0x00010400u);

    // Not ready until the host sets CC.EN; admin commands wait for it.
    EXPECT_EQ(admin.run(property_sqe(false, w::kPropCsts)).result & 1, 0u);
    EXPECT_EQ(sc(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096)),
              NVME_SC_CMD_SEQ_ERROR);
    uint32_t cc = 1 | (6 << 16) | (4 << 20);
    ASSERT_EQ(admin.run(property_sqe(true, w::kPropCc, cc)).status, 0);
    EXPECT_EQ(admin.run(property_sqe(false, w::kPropCc)).result, cc);
    EXPECT_EQ(admin.run(property_sqe(false, w::kPropCsts)).result & 1, 1u);
    EXPECT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);

    // Normal shutdown: CSTS.SHST reports complete (10b).
    ASSERT_EQ(admin.run(property_sqe(true, w::kPropCc, cc | (1u << 14))).status, 0);
    EXPECT_EQ((admin.run(property_sqe(false, w::kPropCsts)).result >> 2) & 3, 2u);
    // Disable: RDY clears.
    ASSERT_EQ(admin.run(property_sqe(true, w::kPropCc, 0)).status, 0);
    EXPECT_EQ(admin.run(property_sqe(false, w::kPropCsts)).result & 1, 0u);

    EXPECT_EQ(sc(admin.run(property_sqe(false, 0x40))), NVME_SC_INVALID_FIELD);
    EXPECT_EQ(sc(admin.run(property_sqe(true, w::kPropCsts, 1))), NVME_SC_INVALID_FIELD);
}

TEST(Identify, ControllerReportsIdentityLimitsAndCapabilities) {
    UnitTarget t;
    TestQueue admin(t.target, t.port);
    uint16_t cntlid = t.bring_up(admin);
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);
    const auto &id = *reinterpret_cast<const nvme_id_ctrl *>(admin.data());
    EXPECT_EQ(trimmed(id.sn, sizeof(id.sn)), "SN-UNIT-7");
    EXPECT_EQ(trimmed(id.mn, sizeof(id.mn)), "skiff unit model");
    EXPECT_EQ(trimmed(id.fr, sizeof(id.fr)), "1.2.3");
    EXPECT_EQ(id.sn[sizeof(id.sn) - 1], ' '); // space padded, not NUL terminated
    EXPECT_EQ(id.cntlid, cntlid);
    EXPECT_EQ(id.mdts, 5); // 128 KiB in 4 KiB pages
    EXPECT_EQ(id.sgls, (1u << 0) | (1u << 20));
    EXPECT_EQ(id.ioccsz, (64u + 8192u) / 16u);
    EXPECT_EQ(id.iorcsz, 1u);
    EXPECT_EQ(id.cntrltype, NVME_CTRL_CNTRLTYPE_IO);
    EXPECT_EQ(id.nn, tgt::kMaxNamespaces);
    EXPECT_EQ(id.aerl, 3);
    EXPECT_EQ(id.kas, 10);
    EXPECT_TRUE(id.oncs & NVME_CTRL_ONCS_COMPARE);
    EXPECT_TRUE(id.oncs & NVME_CTRL_ONCS_DSM);
    EXPECT_TRUE(id.oncs & NVME_CTRL_ONCS_WRITE_ZEROES);
    EXPECT_TRUE(id.fuses & NVME_CTRL_FUSES_COMPARE_AND_WRITE);
    EXPECT_TRUE(id.oaes & NVME_CTRL_OAES_NA);
    EXPECT_EQ(std::string(id.subnqn), kNqn);
    EXPECT_EQ(id.sqes, 0x66);
    EXPECT_EQ(id.cqes, 0x44);
}

TEST(Identify, NamespaceGeometryFor512And4096ByteBlocks) {
    for (uint32_t bs : {512u, 4096u}) {
        UnitTarget t(bs);
        TestQueue admin(t.target, t.port);
        t.bring_up(admin);
        ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 1), 4096).status, 0);
        const auto &ns = *reinterpret_cast<const nvme_id_ns *>(admin.data());
        EXPECT_EQ(ns.nsze, (8ull << 20) / bs);
        EXPECT_EQ(ns.ncap, ns.nsze);
        EXPECT_EQ(ns.nlbaf, 0);
        EXPECT_EQ(ns.flbas, 0);
        EXPECT_EQ(1u << ns.lbaf[0].ds, bs);
        EXPECT_EQ(std::memcmp(ns.nguid, t.ns->ids().nguid.data(), 16), 0);
    }
}

TEST(Identify, ListsDescriptorsAndErrors) {
    UnitTarget t;
    TestQueue admin(t.target, t.port);
    t.bring_up(admin);
    // Active namespace list: just nsid 1.
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0), 4096).status, 0);
    const auto *list = reinterpret_cast<const uint32_t *>(admin.data());
    EXPECT_EQ(list[0], 1u);
    EXPECT_EQ(list[1], 0u);
    // Descriptor list: NGUID, UUID, CSI.
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_DESC_LIST, 1), 4096).status, 0);
    const uint8_t *p = admin.data();
    EXPECT_EQ(p[0], NVME_NIDT_NGUID);
    EXPECT_EQ(p[1], 16);
    p += 4 + 16;
    EXPECT_EQ(p[0], NVME_NIDT_UUID);
    EXPECT_EQ(std::memcmp(p + 4, t.ns->ids().uuid.data(), 16), 0);
    p += 4 + 16;
    EXPECT_EQ(p[0], NVME_NIDT_CSI);
    EXPECT_EQ(p[4], NVME_CSI_NVM);
    // I/O command set specific (CNS 05h/06h) for NVM; other command sets are invalid.
    EXPECT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CSI_NS, 1, NVME_CSI_NVM << 24), 4096)
                  .status,
              0);
    EXPECT_EQ(
        admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CSI_CTRL, 0, NVME_CSI_NVM << 24), 4096)
            .status,
        0);
    EXPECT_EQ(sc(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CSI_NS, 1, 2u << 24), 4096)),
              NVME_SC_INVALID_FIELD);
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_COMMAND_SET_STRUCTURE), 4096).status,
              0);
    EXPECT_EQ(admin.data()[0], 1);
    // Bad namespace ids and an unsupported CNS.
    auto bad = admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 0), 4096);
    EXPECT_EQ(sc(bad), NVME_SC_INVALID_NS);
    EXPECT_TRUE(dnr(bad));
    EXPECT_EQ(sc(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_DESC_LIST, 7), 4096)),
              NVME_SC_INVALID_NS);
    EXPECT_EQ(sc(admin.run(admin_sqe(nvme_admin_identify, 0x15), 4096)), NVME_SC_INVALID_FIELD);
    // An inactive but valid nsid reads as zeroes.
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 9), 4096).status, 0);
    EXPECT_EQ(reinterpret_cast<const nvme_id_ns *>(admin.data())->nsze, 0u);
    // The transfer must be exactly 4 KiB.
    EXPECT_EQ(sc(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 512)),
              NVME_SC_SGL_INVALID_DATA);
}

TEST(Identify, DiscoveryControllerIsADiscoveryController) {
    UnitTarget t;
    TestQueue q(t.target, t.port);
    auto d = connect_data(0xFFFF, tgt::kDiscoveryNqn, kHost);
    auto cqe = q.run(connect_sqe(0), sizeof(d), &d);
    ASSERT_EQ(cqe.status, 0);
    EXPECT_EQ(q.queue.controller()->kato_ms(), 120000u); // KATO 0 from a discovery host
    ASSERT_EQ(q.run(property_sqe(true, w::kPropCc, 1)).status, 0);
    ASSERT_EQ(q.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);
    const auto &id = *reinterpret_cast<const nvme_id_ctrl *>(q.data());
    EXPECT_EQ(id.cntrltype, NVME_CTRL_CNTRLTYPE_DISCOVERY);
    EXPECT_EQ(id.nn, 0u);
    EXPECT_EQ(std::string(id.subnqn), tgt::kDiscoveryNqn);
    EXPECT_EQ(q.run(admin_sqe(nvme_admin_keep_alive)).status, 0);
    EXPECT_EQ(sc(q.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 1), 4096)),
              NVME_SC_INVALID_FIELD);
}

} // namespace
} // namespace skiff::test
