// Asymmetric Namespace Access across ports: ANA groups named by namespaces, each group's state
// per port (Subsystem::set_ana_state), log page 0Ch as a controller on each port sees it, the
// ANA change event, Identify fields, and the path statuses of I/O on paths that are not
// accessible.
#include "command_harness.hpp"

namespace skiff::test {
namespace {

using tgt::AnaState;

// The ANA log page as one controller reads it: (group, state, change count, nsids) per group.
struct AnaGroup {
    uint32_t grpid;
    uint8_t state;
    uint64_t chgcnt;
    std::vector<uint32_t> nsids;
};
struct AnaLog {
    uint64_t chgcnt;
    std::vector<AnaGroup> groups;
};

AnaLog read_ana(TestQueue &admin, bool groups_only = false, bool rae = false) {
    w::Sqe s = get_log_sqe(NVME_LOG_LID_ANA, 4096, 0, rae);
    if (groups_only) s.cdw10 |= NVME_LOG_ANA_LSP_RGO_GROUPS_ONLY << 8;
    auto cqe = admin.run(s, 4096);
    EXPECT_EQ(cqe.status, 0);
    const uint8_t *p = admin.data();
    nvme_ana_log hdr;
    std::memcpy(&hdr, p, sizeof(hdr));
    AnaLog out{hdr.chgcnt, {}};
    size_t at = sizeof(hdr);
    for (uint16_t i = 0; i < hdr.ngrps; ++i) {
        nvme_ana_group_desc d;
        std::memcpy(&d, p + at, sizeof(d));
        at += sizeof(d);
        AnaGroup g{d.grpid, d.state, d.chgcnt, {}};
        for (uint32_t k = 0; k < d.nnsids; ++k) {
            uint32_t nsid;
            std::memcpy(&nsid, p + at, 4);
            at += 4;
            g.nsids.push_back(nsid);
        }
        out.groups.push_back(g);
    }
    return out;
}

// A target with namespace 1 in group 1 and namespace 2 in group 2, and two ports: two paths.
struct TwoPathTarget : UnitTarget {
    TwoPathTarget() {
        auto dev = dataplane::RamDevice::create(1 << 20);
        EXPECT_TRUE(dev.ok());
        ns2 = std::make_shared<tgt::Namespace>(2, 512, *dev, tgt::derive_namespace_ids(kNqn, 2));
        ns2->set_ana_group(2);
        EXPECT_TRUE(subsys->add_namespace(ns2).ok());
        port_b = target.add_port({0, "tcp", "127.0.0.1", "4421", false, std::nullopt});
    }
    std::shared_ptr<tgt::Namespace> ns2;
    tgt::Port port_b;
};

TEST(Ana, IdentifyAdvertisesMultiPathAnaAndTheNamespacesGroup) {
    TwoPathTarget t;
    TestQueue admin(t.target, t.port);
    t.bring_up(admin);
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);
    const auto &id = *reinterpret_cast<const nvme_id_ctrl *>(admin.data());
    EXPECT_EQ(id.cmic & 0x0B,
              NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL | NVME_CTRL_CMIC_MULTI_ANA_REPORTING);
    EXPECT_TRUE(id.oaes & NVME_CTRL_OAES_ANA);
    EXPECT_GT(id.anatt, 0);
    EXPECT_EQ(id.anacap & 0x1F, 0x1F); // all five states
    EXPECT_EQ(id.anagrpmax, tgt::kMaxAnaGroups);
    EXPECT_EQ(id.nanagrpid, tgt::kMaxAnaGroups);
    ASSERT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 2), 4096).status, 0);
    const auto &ns = *reinterpret_cast<const nvme_id_ns *>(admin.data());
    EXPECT_EQ(ns.anagrpid, 2u);
    EXPECT_TRUE(ns.nmic & NVME_NS_NMIC_SHARED);
}

TEST(Ana, EachPortReportsItsOwnStateOfEachGroup) {
    TwoPathTarget t;
    TestQueue a(t.target, t.port), b(t.target, t.port_b);
    t.bring_up(a);
    t.bring_up(b);
    AnaLog la = read_ana(a);
    ASSERT_EQ(la.groups.size(), 2u);
    EXPECT_EQ(la.groups[0].grpid, 1u);
    EXPECT_EQ(la.groups[0].nsids, std::vector<uint32_t>{1});
    EXPECT_EQ(la.groups[1].grpid, 2u);
    EXPECT_EQ(la.groups[1].nsids, std::vector<uint32_t>{2});
    EXPECT_EQ(la.groups[0].state, NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(la.groups[1].state, NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(la.chgcnt, 0u);

    EXPECT_TRUE(t.subsys->set_ana_state(t.port_b.id, 2, AnaState::kInaccessible));
    EXPECT_FALSE(t.subsys->set_ana_state(t.port_b.id, 2, AnaState::kInaccessible)); // no change
    EXPECT_TRUE(t.subsys->set_ana_state(t.port_b.id, 1, AnaState::kNonOptimized));
    AnaLog lb = read_ana(b);
    ASSERT_EQ(lb.groups.size(), 2u);
    EXPECT_EQ(lb.groups[0].state, NVME_ANA_STATE_NONOPTIMIZED);
    EXPECT_EQ(lb.groups[1].state, NVME_ANA_STATE_INACCESSIBLE);
    EXPECT_EQ(lb.groups[0].chgcnt, 1u);
    EXPECT_EQ(lb.groups[1].chgcnt, 1u);
    EXPECT_EQ(lb.chgcnt, 2u);
    // Port A is untouched.
    la = read_ana(a);
    EXPECT_EQ(la.groups[0].state, NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(la.groups[1].state, NVME_ANA_STATE_OPTIMIZED);
    EXPECT_EQ(la.chgcnt, 0u);

    // RGO: the groups without their namespace lists.
    AnaLog g = read_ana(b, true);
    ASSERT_EQ(g.groups.size(), 2u);
    EXPECT_TRUE(g.groups[0].nsids.empty());
    EXPECT_EQ(g.groups[1].state, NVME_ANA_STATE_INACCESSIBLE);

    // A namespace moved into group 2 is reported there.
    auto dev = dataplane::RamDevice::create(1 << 20);
    ASSERT_TRUE(dev.ok());
    auto ns3 = std::make_shared<tgt::Namespace>(3, 512, *dev, tgt::derive_namespace_ids(kNqn, 3));
    ns3->set_ana_group(2);
    ASSERT_TRUE(t.subsys->add_namespace(ns3).ok());
    lb = read_ana(b);
    ASSERT_EQ(lb.groups.size(), 2u);
    EXPECT_EQ(lb.groups[1].nsids, (std::vector<uint32_t>{2, 3}));
}

TEST(Ana, IoOnAPathThatIsNotAccessibleGetsTheRetryablePathStatus) {
    TwoPathTarget t;
    TestQueue admin(t.target, t.port_b), io(t.target, t.port_b);
    uint16_t cntlid = t.bring_up(admin);
    ASSERT_EQ(t.connect_io(io, cntlid).status, 0);
    std::vector<uint8_t> block(512, 0x5A);
    auto write = [&](uint32_t nsid) { return io.run(io_sqe(nvme_cmd_write, 0, 1, nsid), 512, block.data()); };
    auto read = [&](uint32_t nsid) { return io.run(io_sqe(nvme_cmd_read, 0, 1, nsid), 512); };

    struct Case {
        AnaState state;
        uint16_t sc; // 0: the command runs
    } cases[] = {{AnaState::kNonOptimized, 0},
                 {AnaState::kInaccessible, NVME_SC_ANA_INACCESSIBLE},
                 {AnaState::kPersistentLoss, NVME_SC_ANA_PERSISTENT_LOSS},
                 {AnaState::kChange, NVME_SC_ANA_TRANSITION},
                 {AnaState::kOptimized, 0}};
    for (const Case &c : cases) {
        SCOPED_TRACE(tgt::ana_state_name(c.state));
        t.subsys->set_ana_state(t.port_b.id, 2, c.state);
        for (w::Cqe cqe : {write(2), read(2), io.run(io_sqe(nvme_cmd_flush, 0, 1, 2))}) {
            if (!c.sc) {
                EXPECT_EQ(cqe.status, 0);
                continue;
            }
            EXPECT_EQ(sct(cqe), NVME_SCT_PATH);
            EXPECT_EQ(sc(cqe), c.sc);
            EXPECT_FALSE(dnr(cqe)) << "a path error must let the host retry on another path";
        }
        // Group 1 (namespace 1) on the same port is not concerned.
        EXPECT_EQ(write(1).status, 0);
        EXPECT_EQ(read(1).status, 0);
    }
    // The same namespace through port A runs while port B's path is inaccessible.
    t.subsys->set_ana_state(t.port_b.id, 2, AnaState::kInaccessible);
    TestQueue admin_a(t.target, t.port), io_a(t.target, t.port);
    uint16_t cntlid_a = t.bring_up(admin_a);
    ASSERT_EQ(t.connect_io(io_a, cntlid_a).status, 0);
    EXPECT_EQ(io_a.run(io_sqe(nvme_cmd_read, 0, 1, 2), 512).status, 0);
    EXPECT_EQ(io_a.data()[0], 0x5A);
}

TEST(Ana, ChangeRaisesTheAnaEventOnlyOnThePortThatChangedAndRearmsWhenTheLogIsRead) {
    TwoPathTarget t;
    TestQueue a(t.target, t.port), b(t.target, t.port_b);
    t.bring_up(a);
    t.bring_up(b);
    constexpr uint32_t kAecAna = 1u << 11;
    std::vector<tgt::Request *> aers_a, aers_b;
    for (TestQueue *q : {&a, &b}) {
        ASSERT_EQ(q->run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_ASYNC_EVENT, 0, kAecAna)).status,
                  0);
        for (int i = 0; i < 2; ++i)
            (q == &a ? aers_a : aers_b).push_back(&q->submit(admin_sqe(nvme_admin_async_event)));
    }
    a.queue.poll(1);
    b.queue.poll(1);
    EXPECT_FALSE(a.is_done(*aers_a[0]));
    EXPECT_FALSE(b.is_done(*aers_b[0]));

    t.subsys->set_ana_state(t.port_b.id, 1, AnaState::kChange);
    a.queue.poll(2);
    b.queue.poll(2);
    EXPECT_FALSE(a.is_done(*aers_a[0])) << "port A's state did not change";
    ASSERT_TRUE(b.is_done(*aers_b[0]));
    EXPECT_EQ(aers_b[0]->cqe.result,
              uint64_t(NVME_AER_NOTICE | (NVME_AER_NOTICE_ANA << 8) | (NVME_LOG_LID_ANA << 16)));

    // Masked until the log is read: the transition's end raises nothing yet.
    t.subsys->set_ana_state(t.port_b.id, 1, AnaState::kOptimized);
    b.queue.poll(3);
    EXPECT_FALSE(b.is_done(*aers_b[1]));
    // A read with RAE (retain) does not re-arm; one without does, and what was read is no news.
    EXPECT_EQ(read_ana(b, false, true).groups[0].state, NVME_ANA_STATE_OPTIMIZED);
    b.queue.poll(4);
    EXPECT_FALSE(b.is_done(*aers_b[1]));
    EXPECT_EQ(read_ana(b).chgcnt, 2u);
    b.queue.poll(5);
    EXPECT_FALSE(b.is_done(*aers_b[1])) << "nothing new since the read";
    t.subsys->set_ana_state(t.port_b.id, 1, AnaState::kInaccessible);
    b.queue.poll(6);
    EXPECT_TRUE(b.is_done(*aers_b[1]));
}

TEST(Ana, StateNamesRoundTrip) {
    for (AnaState s : {AnaState::kOptimized, AnaState::kNonOptimized, AnaState::kInaccessible,
                       AnaState::kPersistentLoss, AnaState::kChange})
        EXPECT_EQ(tgt::parse_ana_state(tgt::ana_state_name(s)), s);
    EXPECT_FALSE(tgt::parse_ana_state("optimised"));
    EXPECT_FALSE(tgt::parse_ana_state(""));
    tgt::PortAna p;
    EXPECT_EQ(p.state(0), AnaState::kOptimized);
    EXPECT_FALSE(p.set(tgt::kMaxAnaGroups + 1, AnaState::kInaccessible));
    EXPECT_TRUE(p.set(tgt::kMaxAnaGroups, AnaState::kInaccessible));
    EXPECT_EQ(p.state(tgt::kMaxAnaGroups), AnaState::kInaccessible);
    EXPECT_EQ(p.changes(), 1u);
}

TEST(Discovery, ReferralsAreListedAsSubtypeOneEntriesAndBumpTheGeneration) {
    UnitTarget t;
    auto read_log = [&] {
        TestQueue q(t.target, t.port);
        auto d = connect_data(0xFFFF, tgt::kDiscoveryNqn, kHost);
        EXPECT_EQ(q.run(connect_sqe(0), sizeof(d), &d).status, 0);
        EXPECT_EQ(q.run(property_sqe(true, w::kPropCc, 1)).status, 0);
        // A 1 KiB header and 1 KiB per entry: room for six entries.
        EXPECT_EQ(q.run(get_log_sqe(NVME_LOG_LID_DISCOVER, 7168, 0), 7168).status, 0);
        std::vector<uint8_t> page(q.data(), q.data() + 7168);
        return page;
    };
    auto before = read_log();
    uint64_t gen0 = reinterpret_cast<const nvmf_discovery_log *>(before.data())->genctr;
    tgt::Port r1{7, "tcp", "192.0.2.8", "8009", true, std::nullopt};
    tgt::Port r2{8, "rdma", "fd00::8", "4420", true, std::nullopt};
    t.target.set_referrals({r1, r2});
    auto page = read_log();
    const auto &log = *reinterpret_cast<const nvmf_discovery_log *>(page.data());
    EXPECT_GT(log.genctr, gen0);
    ASSERT_EQ(log.numrec, 4u); // the subsystem, this discovery service, two referrals
    const auto &e = log.entries[2];
    EXPECT_EQ(e.subtype, NVME_NQN_DISC);
    EXPECT_EQ(std::string(e.subnqn), tgt::kDiscoveryNqn);
    EXPECT_EQ(std::string(e.traddr), "192.0.2.8");
    EXPECT_EQ(std::string(e.trsvcid), "8009");
    EXPECT_EQ(e.adrfam, NVMF_ADDR_FAMILY_IP4);
    EXPECT_EQ(e.portid, 7);
    EXPECT_EQ(log.entries[3].trtype, NVMF_TRTYPE_RDMA);
    EXPECT_EQ(log.entries[3].adrfam, NVMF_ADDR_FAMILY_IP6);
    EXPECT_EQ(std::string(log.entries[3].traddr), "fd00::8"); // no brackets, as nvme-cli reads it
    // Setting the same list again changes nothing; clearing it removes them.
    uint64_t gen1 = log.genctr;
    t.target.set_referrals({r1, r2});
    EXPECT_EQ(reinterpret_cast<const nvmf_discovery_log *>(read_log().data())->genctr, gen1);
    t.target.set_referrals({});
    auto cleared = read_log();
    EXPECT_EQ(reinterpret_cast<const nvmf_discovery_log *>(cleared.data())->numrec, 2u);
}

} // namespace
} // namespace skiff::test
