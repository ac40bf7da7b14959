// Per-host namespace visibility and 1024 namespaces in one subsystem, at the command layer: what
// a host that must not see a namespace gets (Identify, the active list, I/O, features, log pages),
// what changes when its host list changes live (the namespace-attribute-changed event, the
// Changed Namespace List), and the lists at their full size.
#include "command_harness.hpp"

#include "skiff/dataplane/null_device.hpp"

namespace skiff::test {
namespace {

const std::string kOther = "nqn.2026-11.io.skiff:unit-other-host";

// One host's admin and I/O queue on the unit target, with namespace notices enabled.
struct HostQueues {
    HostQueues(UnitTarget &t, const std::string &hostnqn, uint8_t hostid)
        : admin(t.target, t.port), io(t.target, t.port) {
        auto data = connect_data(0xFFFF, kNqn, hostnqn, hostid);
        auto cqe = admin.run(connect_sqe(0, 31, 0), sizeof(data), &data);
        EXPECT_EQ(cqe.status, 0);
        EXPECT_EQ(admin.run(property_sqe(true, w::kPropCc, 1)).status, 0);
        EXPECT_EQ(t.connect_io(io, static_cast<uint16_t>(cqe.result), 1, hostnqn, hostid).status, 0);
        EXPECT_EQ(admin.run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_ASYNC_EVENT, 0, 1u << 8)).status,
                  0);
    }
    std::vector<uint32_t> active_list(uint32_t after = 0) {
        auto cqe = admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, after), 4096);
        EXPECT_EQ(cqe.status, 0);
        std::vector<uint32_t> out;
        const auto *list = reinterpret_cast<const uint32_t *>(admin.data());
        for (size_t i = 0; i < 1024 && list[i]; ++i) out.push_back(list[i]);
        return out;
    }
    std::vector<uint32_t> changed_list() {
        EXPECT_EQ(admin.run(get_log_sqe(NVME_LOG_LID_CHANGED_NS, 4096), 4096).status, 0);
        std::vector<uint32_t> out;
        const auto *list = reinterpret_cast<const uint32_t *>(admin.data());
        for (size_t i = 0; i < 1024 && list[i]; ++i) out.push_back(list[i]);
        return out;
    }
    uint64_t nsze(uint32_t nsid) {
        EXPECT_EQ(admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, nsid), 4096).status, 0);
        return reinterpret_cast<const nvme_id_ns *>(admin.data())->nsze;
    }
    w::Cqe read(uint32_t nsid) { return io.run(io_sqe(nvme_cmd_read, 0, 1, nsid), 512); }

    TestQueue admin, io;
};

std::shared_ptr<tgt::Namespace> null_namespace(uint32_t nsid, uint64_t size = 1 << 20) {
    return std::make_shared<tgt::Namespace>(nsid, 512, std::make_shared<dataplane::NullDevice>(size),
                                            tgt::derive_namespace_ids(kNqn, nsid));
}

TEST(NamespaceVisibility, AHiddenNamespaceIsInactiveForThatHostOnly) {
    UnitTarget t;
    auto ns2 = null_namespace(2);
    ns2->set_visibility({false, {kOther}});
    ASSERT_TRUE(t.subsys->add_namespace(ns2).ok());
    HostQueues a(t, kHost, 0x42), b(t, kOther, 0x43);

    EXPECT_EQ(a.active_list(), (std::vector<uint32_t>{1}));
    EXPECT_EQ(b.active_list(), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(a.nsze(2), 0u) << "a hidden nsid reads as an inactive one: zeroes";
    EXPECT_EQ(b.nsze(2), 2048u);
    auto hidden = a.read(2);
    EXPECT_EQ(sc(hidden), NVME_SC_INVALID_NS);
    EXPECT_TRUE(dnr(hidden));
    EXPECT_EQ(b.read(2).status, 0);
    EXPECT_EQ(sc(a.admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS_DESC_LIST, 2), 4096)),
              NVME_SC_INVALID_NS);
    EXPECT_EQ(sc(a.admin.run(get_log_sqe(NVME_LOG_LID_SMART, 512, 2), 512)), NVME_SC_INVALID_NS);
    EXPECT_EQ(sc(a.admin.run(admin_sqe(nvme_admin_get_features, NVME_FEAT_FID_RESV_MASK, 2))),
              NVME_SC_INVALID_NS);
    // A broadcast Flush covers the namespaces the host sees, and succeeds.
    EXPECT_EQ(a.io.run(io_sqe(nvme_cmd_flush, 0, 1, 0xFFFFFFFF)).status, 0);
}

TEST(NamespaceVisibility, ChangingTheHostListLiveTellsOnlyTheHostsWhoseViewChanged) {
    UnitTarget t;
    auto ns2 = null_namespace(2);
    ns2->set_visibility({false, {kOther}});
    ASSERT_TRUE(t.subsys->add_namespace(ns2).ok());
    HostQueues a(t, kHost, 0x42), b(t, kOther, 0x43);
    tgt::Request &aer_a = a.admin.submit(admin_sqe(nvme_admin_async_event));
    tgt::Request &aer_b = b.admin.submit(admin_sqe(nvme_admin_async_event));

    // Host A joins the list: its I/O works at once, and its next admin poll raises the event.
    ASSERT_TRUE(t.subsys->set_namespace_visibility(2, {false, {kOther, kHost}}).ok());
    EXPECT_EQ(a.read(2).status, 0);
    a.admin.queue.poll(1);
    b.admin.queue.poll(1);
    ASSERT_TRUE(a.admin.is_done(aer_a));
    EXPECT_EQ(aer_a.cqe.result, uint64_t(NVME_AER_NOTICE | (NVME_LOG_LID_CHANGED_NS << 16)));
    EXPECT_FALSE(b.admin.is_done(aer_b)) << "host B saw no change";
    EXPECT_EQ(a.changed_list(), (std::vector<uint32_t>{2}));
    EXPECT_EQ(a.active_list(), (std::vector<uint32_t>{1, 2}));

    // The same list again changes nothing; then host A leaves it: the nsid is inactive for it now.
    ASSERT_TRUE(t.subsys->set_namespace_visibility(2, {false, {kOther, kHost}}).ok());
    tgt::Request &aer_a2 = a.admin.submit(admin_sqe(nvme_admin_async_event));
    a.admin.queue.poll(2);
    EXPECT_FALSE(a.admin.is_done(aer_a2));
    ASSERT_TRUE(t.subsys->set_namespace_visibility(2, {false, {kOther}}).ok());
    EXPECT_EQ(sc(a.read(2)), NVME_SC_INVALID_NS);
    a.admin.queue.poll(3);
    ASSERT_TRUE(a.admin.is_done(aer_a2));
    EXPECT_EQ(a.changed_list(), (std::vector<uint32_t>{2}));
    EXPECT_EQ(a.active_list(), (std::vector<uint32_t>{1}));

    // Visible to no host at all, then to every host.
    ASSERT_TRUE(t.subsys->set_namespace_visibility(2, {false, {}}).ok());
    EXPECT_EQ(sc(b.read(2)), NVME_SC_INVALID_NS);
    b.admin.queue.poll(4);
    ASSERT_TRUE(b.admin.is_done(aer_b));
    ASSERT_TRUE(t.subsys->set_namespace_visibility(2, {}).ok());
    EXPECT_EQ(a.read(2).status, 0);
    EXPECT_EQ(b.read(2).status, 0);
    EXPECT_FALSE(t.subsys->set_namespace_visibility(9, {}).ok()) << "no namespace 9";
}

TEST(NamespaceVisibility, AControllerThatConnectsLaterGetsItsHostsView) {
    UnitTarget t;
    HostQueues early(t, kHost, 0x42);
    auto ns2 = null_namespace(2);
    ns2->set_visibility({false, {kOther}});
    ASSERT_TRUE(t.subsys->add_namespace(ns2).ok());
    EXPECT_EQ(sc(early.read(2)), NVME_SC_INVALID_NS) << "hidden before it was published";
    tgt::Request &aer = early.admin.submit(admin_sqe(nvme_admin_async_event));
    early.admin.queue.poll(1);
    EXPECT_FALSE(early.admin.is_done(aer)) << "a namespace the host does not see is no change for it";
    HostQueues late(t, kOther, 0x43);
    EXPECT_EQ(late.active_list(), (std::vector<uint32_t>{1, 2}));
    HostQueues late_a(t, kHost, 0x44);
    EXPECT_EQ(late_a.active_list(), (std::vector<uint32_t>{1}));
}

TEST(NamespaceScale, ASubsystemHolds1024NamespacesWithFullLists) {
    UnitTarget t;
    for (uint32_t nsid = 2; nsid <= tgt::kMaxNamespaces; ++nsid)
        ASSERT_TRUE(t.subsys->add_namespace(null_namespace(nsid)).ok()) << nsid;
    EXPECT_FALSE(t.subsys->add_namespace(null_namespace(tgt::kMaxNamespaces + 1)).ok());
    HostQueues h(t, kHost, 0x42);

    std::vector<uint32_t> all = h.active_list();
    ASSERT_EQ(all.size(), 1024u) << "one Identify page holds every nsid";
    for (uint32_t i = 0; i < 1024; ++i) EXPECT_EQ(all[i], i + 1);
    EXPECT_EQ(h.active_list(1000).size(), 24u);
    EXPECT_TRUE(h.active_list(1024).empty());
    EXPECT_EQ(h.read(1024).status, 0);
    EXPECT_EQ(h.nsze(1024), 2048u);
    EXPECT_EQ(sc(h.read(1025)), NVME_SC_INVALID_NS);

    // Every namespace removed at once: the Changed Namespace List names all 1024, in order.
    tgt::Request &aer = h.admin.submit(admin_sqe(nvme_admin_async_event));
    std::vector<std::shared_ptr<tgt::Namespace>> removed;
    for (uint32_t nsid = tgt::kMaxNamespaces; nsid >= 1; --nsid)
        removed.push_back(t.subsys->remove_namespace(nsid));
    h.admin.queue.poll(1);
    ASSERT_TRUE(h.admin.is_done(aer));
    std::vector<uint32_t> changed = h.changed_list();
    ASSERT_EQ(changed.size(), 1024u);
    for (uint32_t i = 0; i < 1024; ++i) EXPECT_EQ(changed[i], i + 1);
    EXPECT_TRUE(h.changed_list().empty()) << "reading it cleared it";
    EXPECT_TRUE(h.active_list().empty());
}

} // namespace
} // namespace skiff::test
