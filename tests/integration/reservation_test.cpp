// NVMe Reservations through skiff-target over NVMe/TCP, from two hosts (distinct host NQNs and
// host ids) using the initiator library: Register, Acquire, a conflicting Write, Report
// (extended data structure), the reservation notice on the other host, Release; and a
// reservation persisted through power loss (ptpl_file) surviving a restart of the target.
#include "target_fixture.hpp"

#include "skiff/nvmeof/host/commands.hpp"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace skiff;
using namespace skiff::itest;
using namespace skiff::nvmeof;
using namespace skiff::nvmeof::host;

namespace {

wire::Sqe resv_sqe(uint8_t opcode, uint32_t cdw10, uint32_t cdw11 = 0) {
    wire::Sqe s{};
    s.opcode = opcode;
    s.nsid = 1;
    s.cdw10 = cdw10;
    s.cdw11 = cdw11;
    return s;
}

// One reservation command on I/O queue 0; the completion as the target sent it.
Completion run(Controller &c, const wire::Sqe &sqe, DataDir dir, void *data, uint32_t len) {
    Result<Completion> r = c.io_queue(0).execute(sqe, dir, data, len);
    EXPECT_TRUE(r.ok()) << r.error().describe();
    return r.ok() ? *r : Completion{};
}

bool reg(Controller &c, uint64_t nrkey) {
    uint64_t keys[2] = {0, nrkey};
    return run(c, resv_sqe(nvme_cmd_resv_register, NVME_RESERVATION_RREGA_REGISTER_KEY),
               DataDir::kHostToController, keys, 16)
        .nvme_ok();
}

} // namespace

class integration_reservation : public TargetTest {};

TEST_F(integration_reservation, TwoHostsRegisterAcquireConflictReportRelease) {
    start_target();
    ConnectOptions oa = options(), ob = options();
    oa.host = HostIdentity::generate();
    ob.host = HostIdentity::generate();
    ASSERT_NE(oa.host.hostid, ob.host.hostid);
    auto a = connect(oa);
    auto b = connect(ob);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(a->identity().oncs & NVME_CTRL_ONCS_RESERVATIONS);
    auto ns = a->identify_namespace(1);
    ASSERT_OK(ns);
    EXPECT_EQ(ns->rescap & 0x7E, 0x7E) << "every reservation type";

    const uint64_t key_a = 0xA11CE, key_b = 0xB0B;
    ASSERT_TRUE(reg(*a, key_a));
    ASSERT_TRUE(reg(*b, key_b));
    // A takes Write Exclusive - Registrants Only... then B unregisters, so B is a non-registrant.
    uint64_t acq[2] = {key_a, 0};
    ASSERT_TRUE(run(*a, resv_sqe(nvme_cmd_resv_acquire, NVME_RESERVATION_RTYPE_WERO << 8),
                    DataDir::kHostToController, acq, 16)
                    .nvme_ok());
    std::vector<uint8_t> block(kBlock, 0x5A);
    ASSERT_OK(b->write(0, 1, 0, 1, block.data(), kBlock)); // a registrant may write under WERO
    uint64_t unreg[2] = {key_b, 0};
    ASSERT_TRUE(run(*b, resv_sqe(nvme_cmd_resv_register, NVME_RESERVATION_RREGA_UNREGISTER_KEY),
                    DataDir::kHostToController, unreg, 16)
                    .nvme_ok());

    // B's write now meets the reservation; its read does not; A (the holder) writes.
    Completion w = run(*b, wire::Sqe(cmd::write(1, 0, 1)), DataDir::kHostToController, block.data(), kBlock);
    EXPECT_EQ(w.sct(), NVME_SCT_GENERIC);
    EXPECT_EQ(w.sc(), NVME_SC_RESERVATION_CONFLICT);
    Status bw = b->write(0, 1, 0, 1, block.data(), kBlock);
    EXPECT_FALSE(bw.ok());
    std::vector<uint8_t> back(kBlock);
    ASSERT_OK(b->read(0, 1, 0, 1, back.data(), kBlock));
    ASSERT_OK(a->write(0, 1, 0, 1, block.data(), kBlock));

    // Report: the regular structure cannot carry 128-bit host ids; the extended one does.
    std::vector<uint8_t> rep(4096, 0xEE);
    Completion r0 = run(*b, resv_sqe(nvme_cmd_resv_report, 4096 / 4 - 1, 0), DataDir::kControllerToHost,
                        rep.data(), 4096);
    EXPECT_EQ(r0.sc(), NVME_SC_HOSTID_FORMAT);
    Completion r1 = run(*b, resv_sqe(nvme_cmd_resv_report, 4096 / 4 - 1, 1), DataDir::kControllerToHost,
                        rep.data(), 4096);
    ASSERT_TRUE(r1.nvme_ok());
    auto *st = reinterpret_cast<const nvme_resv_status *>(rep.data());
    EXPECT_EQ(st->rtype, NVME_RESERVATION_RTYPE_WERO);
    EXPECT_EQ(st->regctl[0], 1);
    EXPECT_EQ(st->gen, 3u); // two registrations and one unregistration
    auto *e = reinterpret_cast<const nvme_registered_ctrl_ext *>(rep.data() + 64);
    EXPECT_EQ(e->rkey, key_a);
    EXPECT_EQ(e->rcsts, 1);
    EXPECT_EQ(std::memcmp(e->hostid, oa.host.hostid.data(), 16), 0) << "the holder is host A by its host id";

    // B registers again and preempts A: A's registration is gone, and A is told (log page 80h).
    ASSERT_TRUE(reg(*b, key_b));
    uint64_t pre[2] = {key_b, key_a};
    ASSERT_TRUE(run(*b,
                    resv_sqe(nvme_cmd_resv_acquire,
                             NVME_RESERVATION_RACQA_PREEMPT | (NVME_RESERVATION_RTYPE_EA << 8)),
                    DataDir::kHostToController, pre, 16)
                    .nvme_ok());
    EXPECT_FALSE(a->read(0, 1, 0, 1, back.data(), kBlock).ok());
    nvme_resv_notification_log page{};
    ASSERT_OK(a->get_log_page(NVME_LOG_LID_RESERVATION, 0xFFFFFFFF, &page, sizeof(page)));
    EXPECT_EQ(page.rnlpt, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
    EXPECT_EQ(page.nsid, 1u);
    EXPECT_EQ(page.lpc, 1u);

    // B releases: A reads and writes again.
    uint64_t rel = key_b;
    ASSERT_TRUE(run(*b, resv_sqe(nvme_cmd_resv_release, NVME_RESERVATION_RTYPE_EA << 8),
                    DataDir::kHostToController, &rel, 8)
                    .nvme_ok());
    ASSERT_OK(a->write(0, 1, 0, 1, block.data(), kBlock));
}

// Persist Through Power Loss: a reservation taken with CPTPL=11b is back after skiff-target is
// stopped and started again on the same configuration (its ptpl_file).
TEST(integration_reservation_ptpl, ReservationSurvivesATargetRestart) {
    char tmpl[] = "/tmp/skiff-resv-XXXXXX";
    const std::string dir = ::mkdtemp(tmpl);
    const std::string nqn = "nqn.2026-11.io.skiff:resv";
    const std::string config = dir + "/target.json", ptpl = dir + "/ns1.resv";
    const uint16_t port = free_port();
    nlohmann::json doc = {
        {"target", {{"cores", 1}}},
        {"backends", {{{"name", "ram1"}, {"kind", "ram"}, {"size", "16MiB"}}}},
        {"subsystems",
         {{{"nqn", nqn}, {"namespaces", {{{"nsid", 1}, {"backend", "ram1"}, {"ptpl_file", ptpl}}}}}}},
        {"listeners", {{{"trtype", "tcp"}, {"addr", "127.0.0.1"}, {"port", port}}}},
        {"discovery", nullptr}};
    std::ofstream(config) << doc.dump(2);
    ConnectOptions oa, ob;
    oa.port = ob.port = port;
    oa.subnqn = ob.subnqn = nqn;
    oa.host = HostIdentity::generate();
    ob.host = HostIdentity::generate();
    std::vector<uint8_t> block(kBlock, 0x33);
    {
        TargetProcess target({"--config", config}, port);
        ASSERT_TRUE(target.started()) << target.log();
        auto a = Controller::connect(oa);
        ASSERT_TRUE(a.ok()) << a.error().describe();
        auto ns = (*a)->identify_namespace(1);
        ASSERT_OK(ns);
        EXPECT_TRUE(ns->rescap & NVME_NS_RESCAP_PTPL);
        uint64_t keys[2] = {0, 0x77};
        uint32_t cdw10 =
            NVME_RESERVATION_RREGA_REGISTER_KEY | (uint32_t(NVME_RESERVATION_CPTPL_PERSIST) << 30);
        ASSERT_TRUE(run(**a, resv_sqe(nvme_cmd_resv_register, cdw10), DataDir::kHostToController, keys, 16)
                        .nvme_ok());
        uint64_t acq[2] = {0x77, 0};
        ASSERT_TRUE(run(**a, resv_sqe(nvme_cmd_resv_acquire, NVME_RESERVATION_RTYPE_WE << 8),
                        DataDir::kHostToController, acq, 16)
                        .nvme_ok());
        auto b = Controller::connect(ob);
        ASSERT_TRUE(b.ok()) << b.error().describe();
        EXPECT_FALSE((*b)->write(0, 1, 0, 1, block.data(), kBlock).ok());
    }
    ASSERT_TRUE(std::filesystem::exists(ptpl));
    {
        TargetProcess target({"--config", config}, port);
        ASSERT_TRUE(target.started()) << target.log();
        auto b = Controller::connect(ob);
        ASSERT_TRUE(b.ok()) << b.error().describe();
        Completion w =
            run(**b, wire::Sqe(cmd::write(1, 0, 1)), DataDir::kHostToController, block.data(), kBlock);
        EXPECT_EQ(w.sc(), NVME_SC_RESERVATION_CONFLICT) << "the reservation did not survive the restart";
        auto a = Controller::connect(oa);
        ASSERT_TRUE(a.ok()) << a.error().describe();
        ASSERT_OK((*a)->write(0, 1, 0, 1, block.data(), kBlock));
        std::vector<uint8_t> rep(4096);
        ASSERT_TRUE(run(**a, resv_sqe(nvme_cmd_resv_report, 4096 / 4 - 1, 1), DataDir::kControllerToHost,
                        rep.data(), 4096)
                        .nvme_ok());
        auto *st = reinterpret_cast<const nvme_resv_status *>(rep.data());
        EXPECT_EQ(st->rtype, NVME_RESERVATION_RTYPE_WE);
        EXPECT_EQ(st->ptpls, 1);
        EXPECT_EQ(st->regctl[0], 1);
    }
    std::filesystem::remove_all(dir);
}
