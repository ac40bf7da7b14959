// NVMe Reservations through the command layer, against a RAM namespace: the access table (every
// type x holder / registrant / non-registrant x read / write), every Register / Acquire /
// Release action's status, Report (regular and extended), notices (log page 80h, the
// asynchronous event, the mask), one host's controllers sharing a registration, and Persist
// Through Power Loss across a new Target on the same file.
#include "command_harness.hpp"

#include "skiff/nvmeof/target/reservation.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace skiff::test {
namespace {

const std::string kHostA = kHost;
const std::string kHostB = "nqn.2014-08.org.nvmexpress:uuid:0b6f1e2a-9c3d-4e5f-8a7b-6c5d4e3f2a1b";
const std::string kHostC = "nqn.2014-08.org.nvmexpress:uuid:1c7a2f3b-0d4e-4f60-9b8c-7d6e5f4a3b2c";

constexpr uint16_t kOk = 0;
constexpr uint8_t kConflict = NVME_SC_RESERVATION_CONFLICT;
constexpr uint8_t kInvalid = NVME_SC_INVALID_FIELD;

// One host: an admin queue (for features, log page 80h and events) and one I/O queue.
struct Host {
    Host(UnitTarget &t, const std::string &nqn, uint8_t hostid)
        : admin(t.target, t.port), io(t.target, t.port), id(hostid) {
        auto data = connect_data(0xFFFF, kNqn, nqn, hostid);
        auto cqe = admin.run(connect_sqe(0, 31, 0), sizeof(data), &data);
        EXPECT_EQ(cqe.status, 0);
        cntlid = static_cast<uint16_t>(cqe.result);
        EXPECT_EQ(admin.run(property_sqe(true, w::kPropCc, 1)).status, 0);
        EXPECT_EQ(t.connect_io(io, cntlid, 1, nqn, hostid).status, 0);
    }

    static w::Sqe resv(uint8_t opcode, uint32_t cdw10, uint32_t cdw11 = 0) {
        w::Sqe s{};
        s.opcode = opcode;
        s.nsid = 1;
        s.cdw10 = cdw10;
        s.cdw11 = cdw11;
        return s;
    }
    w::Cqe reg(uint8_t rrega, uint64_t crkey, uint64_t nrkey, bool iekey = false, uint8_t cptpl = 0) {
        uint64_t data[2] = {crkey, nrkey};
        uint32_t cdw10 = rrega | (iekey ? 1u << 3 : 0) | (uint32_t(cptpl) << 30);
        return io.run(resv(nvme_cmd_resv_register, cdw10), 16, data);
    }
    w::Cqe acquire(uint8_t racqa, uint8_t rtype, uint64_t crkey, uint64_t prkey = 0, bool iekey = false) {
        uint64_t data[2] = {crkey, prkey};
        uint32_t cdw10 = racqa | (iekey ? 1u << 3 : 0) | (uint32_t(rtype) << 8);
        return io.run(resv(nvme_cmd_resv_acquire, cdw10), 16, data);
    }
    w::Cqe release(uint8_t rrela, uint8_t rtype, uint64_t crkey, bool iekey = false) {
        uint32_t cdw10 = rrela | (iekey ? 1u << 3 : 0) | (uint32_t(rtype) << 8);
        return io.run(resv(nvme_cmd_resv_release, cdw10), 8, &crkey);
    }
    // Report into a buffer of `len` bytes (NUMD = len / 4 - 1).
    w::Cqe report(uint32_t len, bool eds = true) {
        return io.run(resv(nvme_cmd_resv_report, len / 4 - 1, eds ? 1 : 0), len);
    }
    w::Cqe read() { return io.run(io_sqe(nvme_cmd_read, 0, 1), 512); }
    w::Cqe write() {
        std::vector<uint8_t> data(512, id);
        return io.run(io_sqe(nvme_cmd_write, 0, 1), 512, data.data());
    }
    // Log page 80h: one notice per read.
    nvme_resv_notification_log notice() {
        auto cqe = admin.run(get_log_sqe(NVME_LOG_LID_RESERVATION, 64, 0xFFFFFFFF), 64);
        EXPECT_EQ(cqe.status, 0);
        nvme_resv_notification_log page;
        std::memcpy(&page, admin.data(), sizeof(page));
        return page;
    }
    tgt::HostId hostid() const {
        tgt::HostId h;
        h.fill(id);
        return h;
    }

    TestQueue admin, io;
    uint8_t id;
    uint16_t cntlid = 0;
};

// A target and three hosts: A (key 0xA1), B (key 0xB2), C never registers.
class Resv : public ::testing::Test {
  protected:
    UnitTarget t;
    Host a{t, kHostA, 0xAA}, b{t, kHostB, 0xBB}, c{t, kHostC, 0xCC};
    static constexpr uint64_t kKeyA = 0xA1, kKeyB = 0xB2;
    tgt::Reservation &state() { return t.ns->reservation(); }
    void register_both() {
        ASSERT_EQ(a.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, kKeyA).status, kOk);
        ASSERT_EQ(b.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, kKeyB).status, kOk);
    }
};

// The specification's table, written out: allowed[rtype - 1][role][write].
constexpr bool kAllowed[6][3][2] = {
    //  holder(r,w)     registrant(r,w)  non-registrant(r,w)
    {{true, true}, {true, false}, {true, false}},   // Write Exclusive
    {{true, true}, {false, false}, {false, false}}, // Exclusive Access
    {{true, true}, {true, true}, {true, false}},    // Write Exclusive - Registrants Only
    {{true, true}, {true, true}, {false, false}},   // Exclusive Access - Registrants Only
    {{true, true}, {true, true}, {true, false}},    // Write Exclusive - All Registrants
    {{true, true}, {true, true}, {false, false}},   // Exclusive Access - All Registrants
};

TEST(ResvTable, EveryTypeRoleAndDirection) {
    const tgt::ResvRole roles[] = {tgt::ResvRole::kHolder, tgt::ResvRole::kRegistrant, tgt::ResvRole::kOther};
    for (uint8_t type = 1; type <= 6; ++type)
        for (int r = 0; r < 3; ++r)
            for (int wr = 0; wr < 2; ++wr)
                EXPECT_EQ(tgt::reservation_allows(type, roles[r], wr), kAllowed[type - 1][r][wr])
                    << "type " << int(type) << " role " << r << " write " << wr;
    for (int r = 0; r < 3; ++r) {
        EXPECT_TRUE(tgt::reservation_allows(0, roles[r], false));
        EXPECT_TRUE(tgt::reservation_allows(0, roles[r], true));
    }
}

// The same table through real Read and Write commands: A holds, B is registered, C is not.
TEST(ResvAccess, EveryTypeAgainstARamNamespace) {
    for (uint8_t type = 1; type <= 6; ++type) {
        SCOPED_TRACE("type " + std::to_string(type));
        UnitTarget t;
        Host a{t, kHostA, 0xAA}, b{t, kHostB, 0xBB}, c{t, kHostC, 0xCC};
        ASSERT_EQ(a.reg(0, 0, 1).status, kOk);
        ASSERT_EQ(b.reg(0, 0, 2).status, kOk);
        // No reservation: everyone reads and writes.
        for (Host *h : {&a, &b, &c}) {
            EXPECT_EQ(h->read().status, kOk);
            EXPECT_EQ(h->write().status, kOk);
        }
        ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, type, 1).status, kOk);
        bool all_registrants = type >= NVME_RESERVATION_RTYPE_WEAR;
        Host *hosts[3] = {&a, &b, &c};
        for (int r = 0; r < 3; ++r) {
            int role = (r == 1 && all_registrants) ? 0 : r; // every registrant holds those types
            for (int wr = 0; wr < 2; ++wr) {
                w::Cqe cqe = wr ? hosts[r]->write() : hosts[r]->read();
                if (kAllowed[type - 1][role][wr]) {
                    EXPECT_EQ(cqe.status, kOk) << "host " << r << " write " << wr;
                } else {
                    EXPECT_EQ(sc(cqe), kConflict) << "host " << r << " write " << wr;
                    EXPECT_EQ(sct(cqe), NVME_SCT_GENERIC);
                }
            }
        }
        // Flush counts as a write, Compare as a read.
        w::Sqe flush = io_sqe(nvme_cmd_flush, 0, 1);
        flush.cdw10 = flush.cdw12 = 0;
        EXPECT_EQ(c.io.run(flush).status == 0, kAllowed[type - 1][2][1]);
        std::vector<uint8_t> same(512, 0xAA);
        w::Cqe cmp = c.io.run(io_sqe(nvme_cmd_compare, 0, 1), 512, same.data());
        EXPECT_EQ(sc(cmp) != kConflict, kAllowed[type - 1][2][0]);
        // Copy is in the write group (it writes its destination), Verify in the read group.
        nvme_copy_range source{};
        source.slba = 0;
        source.nlb = 0; // one block
        w::Sqe copy = io_sqe(nvme_cmd_copy, 8, 1); // SDLBA 8; CDW12 0: one range, format 0h
        EXPECT_EQ(c.io.run(copy, sizeof(source), &source).status == 0, kAllowed[type - 1][2][1]);
        EXPECT_EQ(c.io.run(io_sqe(nvme_cmd_verify, 0, 1)).status == 0, kAllowed[type - 1][2][0]);
        // Released: everyone again.
        ASSERT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, type, 1).status, kOk);
        EXPECT_EQ(c.write().status, kOk);
    }
}

TEST_F(Resv, RegisterActions) {
    EXPECT_EQ(state().generation(), 0u);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, kKeyA).status, kOk);
    EXPECT_EQ(state().generation(), 1u);
    // Again with the same key: harmless, no new generation; another key: conflict.
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, kKeyA).status, kOk);
    EXPECT_EQ(state().generation(), 1u);
    EXPECT_EQ(sc(a.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, 0x99)), kConflict);
    // Replace: the current key must match unless IEKEY.
    EXPECT_EQ(sc(a.reg(NVME_RESERVATION_RREGA_REPLACE_KEY, 0x99, 0x55)), kConflict);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_REPLACE_KEY, kKeyA, 0x55).status, kOk);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_REPLACE_KEY, 0x1234, kKeyA, true).status, kOk);
    EXPECT_EQ(state().generation(), 3u);
    // Replace and unregister need a registration.
    EXPECT_EQ(sc(b.reg(NVME_RESERVATION_RREGA_REPLACE_KEY, 0, 1)), kConflict);
    EXPECT_EQ(sc(b.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, 0, 0)), kConflict);
    // Unregister: the key must match unless IEKEY.
    EXPECT_EQ(sc(a.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, 0x99, 0)), kConflict);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, kKeyA, 0).status, kOk);
    EXPECT_EQ(state().registrants(), 0u);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_REGISTER_KEY, 0, kKeyA).status, kOk);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, 0x77, 0, true).status, kOk);
    // Reserved RREGA, reserved CPTPL, PTPL without a file.
    auto bad = a.reg(3, 0, 1);
    EXPECT_EQ(sc(bad), kInvalid);
    EXPECT_TRUE(dnr(bad));
    EXPECT_EQ(sc(a.reg(0, 0, 1, false, 1)), kInvalid);
    EXPECT_EQ(sc(a.reg(0, 0, 1, false, NVME_RESERVATION_CPTPL_PERSIST)), kInvalid);
    EXPECT_EQ(state().registrants(), 0u);
    // CPTPL "clear" is allowed without a file (PTPL stays off).
    EXPECT_EQ(a.reg(0, 0, 1, false, NVME_RESERVATION_CPTPL_CLEAR).status, kOk);
    // Data of the wrong length.
    uint64_t data[2] = {0, 1};
    EXPECT_NE(a.io.run(Host::resv(nvme_cmd_resv_register, 0), 8, data).status, 0);
}

TEST_F(Resv, UnregisteringTheHolderReleasesItsReservation) {
    register_both();
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, kKeyA, 0).status, kOk);
    EXPECT_EQ(state().type(), 0);
    EXPECT_EQ(c.write().status, kOk);
    // B (a registrant of a registrants-only reservation) hears that it was released.
    auto n = b.notice();
    EXPECT_EQ(n.rnlpt, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
    EXPECT_EQ(n.nsid, 1u);
    // An all-registrants reservation stays while any registrant is left.
    ASSERT_EQ(a.reg(0, 0, kKeyA).status, kOk);
    ASSERT_EQ(b.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_EAAR, kKeyB).status, kOk);
    EXPECT_EQ(b.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, kKeyB, 0).status, kOk);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_EAAR);
    EXPECT_EQ(sc(b.read()), kConflict);
    EXPECT_EQ(a.reg(NVME_RESERVATION_RREGA_UNREGISTER_KEY, kKeyA, 0).status, kOk);
    EXPECT_EQ(state().type(), 0);
}

TEST_F(Resv, AcquireActions) {
    // Unregistered, wrong key, IEKEY, bad type, bad action.
    EXPECT_EQ(sc(c.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, 0)), kConflict);
    register_both();
    EXPECT_EQ(sc(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, 0x99)), kConflict);
    EXPECT_EQ(sc(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, kKeyA, 0, true)),
              kInvalid);
    EXPECT_EQ(sc(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, 0, kKeyA)), kInvalid);
    EXPECT_EQ(sc(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, 7, kKeyA)), kInvalid);
    EXPECT_EQ(sc(a.acquire(3, NVME_RESERVATION_RTYPE_WE, kKeyA)), kInvalid);
    EXPECT_EQ(state().type(), 0);
    // Acquire; again with the same type is fine, another type or another host conflicts.
    EXPECT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, kKeyA).status, kOk);
    EXPECT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, kKeyA).status, kOk);
    EXPECT_EQ(sc(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_EA, kKeyA)), kConflict);
    EXPECT_EQ(sc(b.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, kKeyB)), kConflict);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_WE);
    // Preempt with a key nobody holds: conflict; with PRKEY 0 against a single holder: invalid.
    EXPECT_EQ(sc(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_EA, kKeyB, 0x99)),
              kConflict);
    EXPECT_EQ(sc(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_EA, kKeyB, 0)), kInvalid);
    // Preempt the holder: B holds EA, A is unregistered and told.
    uint32_t gen = state().generation();
    EXPECT_EQ(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_EA, kKeyB, kKeyA).status, kOk);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_EA);
    EXPECT_EQ(state().registrants(), 1u);
    EXPECT_EQ(state().generation(), gen + 1);
    EXPECT_EQ(sc(a.read()), kConflict);
    EXPECT_EQ(a.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
    // The holder preempts itself to change the type (Preempt and Abort).
    EXPECT_EQ(
        b.acquire(NVME_RESERVATION_RACQA_PREEMPT_AND_ABORT, NVME_RESERVATION_RTYPE_WERO, kKeyB, kKeyB).status,
        kOk);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_WERO);
    EXPECT_EQ(state().registrants(), 1u);
    // Without a reservation, Preempt only unregisters the PRKEY holders.
    ASSERT_EQ(a.reg(0, 0, kKeyA).status, kOk);
    ASSERT_EQ(b.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_WERO, kKeyB).status, kOk);
    EXPECT_EQ(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_WE, kKeyB, kKeyA).status, kOk);
    EXPECT_EQ(state().type(), 0);
    EXPECT_EQ(state().registrants(), 1u);
}

TEST_F(Resv, PreemptingAnAllRegistrantsReservation) {
    register_both();
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WEAR, kKeyA).status, kOk);
    // Every registrant holds it: B may acquire the same type.
    EXPECT_EQ(b.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WEAR, kKeyB).status, kOk);
    // PRKEY 0 takes it from everyone else.
    EXPECT_EQ(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_EA, kKeyB, 0).status, kOk);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_EA);
    EXPECT_EQ(state().registrants(), 1u);
    EXPECT_EQ(sc(a.read()), kConflict);
    EXPECT_EQ(b.read().status, kOk);
}

TEST_F(Resv, ReleaseActions) {
    EXPECT_EQ(sc(c.release(NVME_RESERVATION_RRELA_RELEASE, 1, 0)), kConflict);
    register_both();
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_EARO, kKeyA).status, kOk);
    EXPECT_EQ(sc(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_EARO, 0x99)), kConflict);
    EXPECT_EQ(sc(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_EARO, kKeyA, true)),
              kInvalid);
    EXPECT_EQ(sc(a.release(2, NVME_RESERVATION_RTYPE_EARO, kKeyA)), kInvalid);
    // A non-holder's release changes nothing; the holder must name the type it holds.
    EXPECT_EQ(b.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_EARO, kKeyB).status, kOk);
    EXPECT_EQ(state().type(), NVME_RESERVATION_RTYPE_EARO);
    EXPECT_EQ(sc(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_WE, kKeyA)), kInvalid);
    EXPECT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_EARO, kKeyA).status, kOk);
    EXPECT_EQ(state().type(), 0);
    EXPECT_EQ(b.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
    EXPECT_EQ(a.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_EMPTY); // the releasing host is not told
    // Releasing with nothing held is fine.
    EXPECT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_EARO, kKeyA).status, kOk);
    // Clear: every registration and the reservation go; the others hear "preempted".
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_EA, kKeyA).status, kOk);
    uint32_t gen = state().generation();
    EXPECT_EQ(b.release(NVME_RESERVATION_RRELA_CLEAR, 0, kKeyB).status, kOk);
    EXPECT_EQ(state().type(), 0);
    EXPECT_EQ(state().registrants(), 0u);
    EXPECT_EQ(state().generation(), gen + 1);
    EXPECT_EQ(a.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
    EXPECT_EQ(c.write().status, kOk);
}

TEST_F(Resv, ReportExtendedAndRegular) {
    register_both();
    ASSERT_EQ(b.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, kKeyB).status, kOk);
    // Regular structure: no room for a 128-bit host identifier.
    auto regular = c.report(4096, false);
    EXPECT_EQ(sc(regular), NVME_SC_HOSTID_FORMAT);
    EXPECT_EQ(sct(regular), NVME_SCT_GENERIC);
    ASSERT_EQ(c.report(4096).status, kOk);
    const uint8_t *d = c.io.data();
    auto *st = reinterpret_cast<const nvme_resv_status *>(d);
    EXPECT_EQ(st->gen, 2u);
    EXPECT_EQ(st->rtype, NVME_RESERVATION_RTYPE_WERO);
    EXPECT_EQ(st->regctl[0] | st->regctl[1] << 8, 2);
    EXPECT_EQ(st->ptpls, 0);
    const auto *e = reinterpret_cast<const nvme_registered_ctrl_ext *>(d + 64);
    for (int i = 0; i < 2; ++i) {
        bool is_b = e[i].hostid[0] == 0xBB;
        EXPECT_EQ(e[i].cntlid, 0xFFFF);
        EXPECT_EQ(e[i].rkey, is_b ? kKeyB : kKeyA);
        EXPECT_EQ(e[i].rcsts, is_b ? 1 : 0);
        for (uint8_t byte : e[i].hostid) EXPECT_EQ(byte, is_b ? 0xBB : 0xAA);
    }
    // Past the data: zero. A short buffer holds what fits.
    EXPECT_EQ(d[64 + 2 * 64], 0);
    ASSERT_EQ(c.report(64 + 16).status, kOk);
    auto *e0 = reinterpret_cast<const nvme_registered_ctrl_ext *>(c.io.data() + 64);
    EXPECT_EQ(e0->cntlid, 0xFFFF);
    EXPECT_NE(e0->rkey, 0u);
    // A wrong SGL length is refused.
    EXPECT_NE(c.io.run(Host::resv(nvme_cmd_resv_report, 15, 1), 128).status, 0);
}

// A fused Compare and Write whose write half meets the reservation fails as a pair.
TEST_F(Resv, FusedPairWithARefusedWriteFailsTogether) {
    register_both();
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WE, kKeyA).status, kOk);
    std::vector<uint8_t> data(512, 0);
    w::Sqe cmp = io_sqe(nvme_cmd_compare, 3, 1), wr = io_sqe(nvme_cmd_write, 3, 1);
    cmp.flags = 1;
    wr.flags = 2;
    auto &c1 = c.io.submit(cmp, 512, data.data()); // a read: allowed under Write Exclusive
    EXPECT_FALSE(c.io.is_done(c1));
    auto &w1 = c.io.submit(wr, 512, data.data());
    ASSERT_TRUE(c.io.is_done(c1) && c.io.is_done(w1));
    EXPECT_EQ(sc(w1.cqe), kConflict);
    EXPECT_EQ(sc(c1.cqe), NVME_SC_FUSED_FAIL);
    // The holder's pair runs.
    auto &c2 = a.io.submit(cmp, 512, data.data());
    auto &w2 = a.io.submit(wr, 512, data.data());
    ASSERT_TRUE(a.io.is_done(c2) && a.io.is_done(w2));
    EXPECT_EQ(c2.cqe.status, 0);
    EXPECT_EQ(w2.cqe.status, 0);
}

TEST_F(Resv, ControllersOfOneHostShareItsRegistration) {
    Host a2{t, kHostA, 0xAA}; // a second association of host A
    ASSERT_NE(a2.cntlid, a.cntlid);
    ASSERT_EQ(a.reg(0, 0, kKeyA).status, kOk);
    // Already registered through the other controller: a different key conflicts.
    EXPECT_EQ(sc(a2.reg(0, 0, 0x42)), kConflict);
    EXPECT_EQ(a2.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_EA, kKeyA).status, kOk);
    EXPECT_EQ(a.write().status, kOk);
    EXPECT_EQ(a.read().status, kOk);
    EXPECT_EQ(sc(c.read()), kConflict);
    ASSERT_EQ(c.report(4096).status, kOk);
    EXPECT_EQ(reinterpret_cast<const nvme_resv_status *>(c.io.data())->regctl[0], 1);
    // Both of A's controllers hear a preemption.
    ASSERT_EQ(b.reg(0, 0, kKeyB).status, kOk);
    ASSERT_EQ(b.acquire(NVME_RESERVATION_RACQA_PREEMPT, NVME_RESERVATION_RTYPE_WE, kKeyB, kKeyA).status, kOk);
    EXPECT_EQ(a.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
    EXPECT_EQ(a2.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
}

TEST_F(Resv, NotificationLogEventAndMask) {
    register_both();
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    // B parks an AER; A releases, B's admin queue raises the event on its next poll.
    tgt::Request &aer = b.admin.submit(admin_sqe(nvme_admin_async_event));
    b.admin.queue.poll(1);
    EXPECT_FALSE(b.admin.is_done(aer));
    ASSERT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    b.admin.queue.poll(2);
    ASSERT_TRUE(b.admin.is_done(aer));
    EXPECT_EQ(aer.cqe.status, 0);
    EXPECT_EQ(aer.cqe.result, uint32_t(NVME_AER_CSS | (NVME_AER_CSS_NVM_RESERVATION << 8) |
                                       (NVME_LOG_LID_RESERVATION << 16)));
    // A second notice while the first is unread raises no second event.
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    ASSERT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    tgt::Request &aer2 = b.admin.submit(admin_sqe(nvme_admin_async_event));
    b.admin.queue.poll(3);
    EXPECT_FALSE(b.admin.is_done(aer2));
    // The log hands the notices out one per read, counting up, then an empty page.
    auto n1 = b.notice();
    EXPECT_EQ(n1.lpc, 1u);
    EXPECT_EQ(n1.rnlpt, NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
    EXPECT_EQ(n1.nalp, 1);
    EXPECT_EQ(n1.nsid, 1u);
    auto n2 = b.notice();
    EXPECT_EQ(n2.lpc, 2u);
    EXPECT_EQ(n2.nalp, 0);
    auto n3 = b.notice();
    EXPECT_EQ(n3.lpc, 0u);
    EXPECT_EQ(n3.rnlpt, NVME_RESV_NOTIFY_RNLPT_EMPTY);
    // Masked (Set Features 82h): no notice, no event.
    auto set = b.admin.run(
        admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_RESV_MASK, 1, NVME_FEAT_RESV_NOTIFY_RESREL));
    ASSERT_EQ(set.status, 0);
    auto get = b.admin.run(admin_sqe(nvme_admin_get_features, NVME_FEAT_FID_RESV_MASK, 1));
    EXPECT_EQ(get.status, 0);
    EXPECT_EQ(get.result, uint32_t(NVME_FEAT_RESV_NOTIFY_RESREL));
    ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    ASSERT_EQ(a.release(NVME_RESERVATION_RRELA_RELEASE, NVME_RESERVATION_RTYPE_WERO, kKeyA).status, kOk);
    b.admin.queue.poll(4);
    EXPECT_FALSE(b.admin.is_done(aer2));
    EXPECT_EQ(b.notice().rnlpt, NVME_RESV_NOTIFY_RNLPT_EMPTY);
    // A namespace that does not exist.
    EXPECT_EQ(sc(b.admin.run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_RESV_MASK, 9, 2))),
              NVME_SC_INVALID_NS);
}

TEST_F(Resv, IdentifyAdvertisesReservations) {
    ASSERT_EQ(a.admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_CTRL), 4096).status, 0);
    auto *ctrl = reinterpret_cast<const nvme_id_ctrl *>(a.admin.data());
    EXPECT_TRUE(ctrl->oncs & NVME_CTRL_ONCS_RESERVATIONS);
    ASSERT_EQ(a.admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 1), 4096).status, 0);
    auto *ns = reinterpret_cast<const nvme_id_ns *>(a.admin.data());
    EXPECT_EQ(ns->rescap, 0xFE); // every type and IEKEY; no PTPL without a file
    // PTPL cannot be turned on without a file.
    EXPECT_EQ(sc(a.admin.run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_RESV_PERSIST, 1, 1))),
              kInvalid);
    auto get = a.admin.run(admin_sqe(nvme_admin_get_features, NVME_FEAT_FID_RESV_PERSIST, 1));
    EXPECT_EQ(get.status, 0);
    EXPECT_EQ(get.result, 0u);
}

// A target whose namespace persists its reservations in `file`.
struct PtplTarget {
    explicit PtplTarget(const std::string &file) {
        std::string err = t.ns->reservation().attach_store(file);
        EXPECT_EQ(err, "");
    }
    UnitTarget t;
};

std::string temp_file(const char *name) {
    auto dir = std::filesystem::temp_directory_path() / ("skiff-resv-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto path = dir / name;
    std::filesystem::remove(path);
    return path.string();
}

TEST(ResvPtpl, StateWrittenAndRestoredAcrossANewTarget) {
    std::string file = temp_file("ns1.resv");
    {
        PtplTarget p(file);
        Host a{p.t, kHostA, 0xAA}, b{p.t, kHostB, 0xBB};
        ASSERT_EQ(a.admin.run(admin_sqe(nvme_admin_identify, NVME_IDENTIFY_CNS_NS, 1), 4096).status, 0);
        EXPECT_EQ(reinterpret_cast<const nvme_id_ns *>(a.admin.data())->rescap, 0xFF);
        ASSERT_EQ(a.reg(0, 0, 0xA1, false, NVME_RESERVATION_CPTPL_PERSIST).status, kOk);
        ASSERT_EQ(b.reg(0, 0, 0xB2).status, kOk);
        ASSERT_EQ(a.acquire(NVME_RESERVATION_RACQA_ACQUIRE, NVME_RESERVATION_RTYPE_WERO, 0xA1).status, kOk);
        EXPECT_TRUE(std::filesystem::exists(file));
        EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
        auto get = a.admin.run(admin_sqe(nvme_admin_get_features, NVME_FEAT_FID_RESV_PERSIST, 1));
        EXPECT_EQ(get.result, 1u);
    }
    {
        // A new target on the same file: the registrations and the reservation are back.
        PtplTarget p(file);
        tgt::Reservation &r = p.t.ns->reservation();
        EXPECT_TRUE(r.ptpl());
        EXPECT_EQ(r.type(), NVME_RESERVATION_RTYPE_WERO);
        EXPECT_EQ(r.registrants(), 2u);
        EXPECT_EQ(r.generation(), 2u);
        Host a{p.t, kHostA, 0xAA}, b{p.t, kHostB, 0xBB}, c{p.t, kHostC, 0xCC};
        EXPECT_EQ(sc(c.write()), kConflict);
        EXPECT_EQ(b.write().status, kOk);
        ASSERT_EQ(c.report(4096).status, kOk);
        EXPECT_EQ(reinterpret_cast<const nvme_resv_status *>(c.io.data())->ptpls, 1);
        // PTPL off (Set Features 83h): what is written now does not come back.
        ASSERT_EQ(a.admin.run(admin_sqe(nvme_admin_set_features, NVME_FEAT_FID_RESV_PERSIST, 1, 0)).status,
                  0);
    }
    {
        PtplTarget p(file);
        EXPECT_FALSE(p.t.ns->reservation().ptpl());
        EXPECT_EQ(p.t.ns->reservation().type(), 0);
        EXPECT_EQ(p.t.ns->reservation().registrants(), 0u);
    }
    std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(ResvPtpl, ABrokenFileIsRefusedWithItsLine) {
    std::string file = temp_file("broken.resv");
    std::ofstream(file) << "skiff-reservations 1\nptpl 1\nregistrant nothex 5\n";
    UnitTarget t;
    std::string err = t.ns->reservation().attach_store(file);
    EXPECT_NE(err.find(file), std::string::npos) << err;
    EXPECT_NE(err.find("line 3"), std::string::npos) << err;
    std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(ResvPtpl, AWriteFailureChangesNothing) {
    std::string file = temp_file("gone/ns1.resv"); // its directory does not exist
    std::filesystem::remove_all(std::filesystem::path(file).parent_path());
    PtplTarget p(file);
    Host a{p.t, kHostA, 0xAA};
    auto cqe = a.reg(0, 0, 1, false, NVME_RESERVATION_CPTPL_PERSIST);
    EXPECT_EQ(sc(cqe), NVME_SC_INTERNAL);
    EXPECT_EQ(p.t.ns->reservation().registrants(), 0u);
    std::filesystem::remove_all(std::filesystem::path(file).parent_path().parent_path());
}

// The data path's check never sees a torn state: while other threads register and unregister
// hosts and the holder releases and re-acquires, the holder is always allowed to write and a
// host that never registers is refused whenever a reservation is published.
TEST(ResvConcurrency, TheLockFreeCheckSeesOnlyWholeStates) {
    tgt::Reservation r;
    tgt::HostId holder, other, churn;
    holder.fill(0x11);
    other.fill(0x22);
    tgt::ResvNotices n;
    ASSERT_EQ(r.reg(holder, 0, false, 0, 0, 7, n), 0);
    ASSERT_EQ(r.acquire(holder, 0, false, NVME_RESERVATION_RTYPE_WE, 7, 0, n), 0);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (int i = 0; i < 20000; ++i) {
            churn.fill(static_cast<uint8_t>(0x40 + i % 16));
            tgt::ResvNotices ignored;
            (void)r.reg(churn, 0, false, 0, 0, 9, ignored);
            if (i % 3 == 0) (void)r.reg(churn, 1, true, 0, 0, 0, ignored);
        }
        stop = true;
    });
    uint64_t checks = 0, refused = 0;
    while (!stop.load()) {
        ASSERT_TRUE(r.allows(holder, true)) << "the holder was refused after " << checks << " checks";
        refused += !r.allows(other, true);
        ++checks;
    }
    writer.join();
    EXPECT_GT(checks, 0u);
    EXPECT_EQ(refused, checks); // WE held the whole time: a non-registrant never writes
}

} // namespace
} // namespace skiff::test
