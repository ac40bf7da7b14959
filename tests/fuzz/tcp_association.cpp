// Fuzz harness: one whole NVMe/TCP association, as a correct host drives it, carrying arbitrary
// commands. Two real socketpairs, each with a target connection (TcpQueuePair) at one end and
// the host (tcp_host.hpp: well-formed PDUs, digests as negotiated, H2CData for every R2T) at the
// other: the admin queue (ICReq, Connect, Property Set CC.EN=1, Property Get CSTS, Identify
// Controller for IOCCSZ, MDTS and AERL), then I/O queue 1 (ICReq, Connect to the controller).
// Then the input's commands on either queue: any opcode, flags (FUSE, PSDT), NSID, CDW10-15,
// with no data, in-capsule data, or data by R2T/H2CData or C2HData; Keep Alive; pauses. The host
// stays within what the target advertised (queue sizes, MDTS, IOCCSZ, MAXH2CDATA; 8 KiB
// in-capsule data on the admin queue, as NVMe/TCP gives every admin queue) and keeps the
// association alive (Keep Alive every KATO/2 when the Connect asked for a KATO).
//
// Input: [limits: 6 bytes, fuzz_limits.hpp][set-up: 4 bytes][record]...
//   set-up: [bits 0-1 digests (header, data), bits 2-3 HPDA, bit 4 disable SQ flow control,
//            bit 5 admin Connect data by R2T, bit 6 I/O Connect data by R2T]
//           [admin SQSIZE selector][I/O SQSIZE selector][KATO selector: 0 none, 1 500 ms, 2 3 s, 3 none]
//   record: [what] bit 0: queue (0 admin, 1 I/O); bits 1-2: 0/1 a command, 2 Keep Alive,
//           3 a pause of (next byte % 64 + 1) turns of 10 ms.
//   command: [opcode][flags: bits 0-1 FUSE; bit 5 set: bits 6-7 are PSDT, else PSDT is SGL]
//            [NSID: 0-3 pick 0, 1, 2, FFFFFFFFh; else 4 more bytes][CDW10..CDW15: 24 bytes]
//            [data: bits 0-1: 0 none, 1 in-capsule, 2-3 transport (R2T or C2HData)]
//            [length: 4 bytes, modulo the limit + 1][fill byte][n: 1 byte][n bytes of data]
//
// Properties, beyond no crash and no sanitizer report:
// - every PDU the target sends is well-formed (tcp_host.hpp), and it never sends a C2HTermReq:
//   the host is correct, so no fatal transport error is deserved;
// - the set-up succeeds (a correct host within the advertised limits must get a working queue);
// - every command gets exactly one completion, with its CID and SQ id (none twice, none for a
//   CID not in flight), except those the specification lets wait. Those are:
//     * Asynchronous Event Requests, up to the AER limit (Identify AERL + 1) in flight: the
//       controller completes one only when an event occurs (NVMe Base 5.2). An AER beyond the
//       limit must complete (Asynchronous Event Request Limit Exceeded).
//     * the last command sent on the I/O queue when it is the first half of a fused operation
//       (FUSE 01b): the second half must be the next SQE (NVMe Base 3.4.2), and until one
//       arrives the controller cannot know it is missing.
//     * commands in flight when a Property Set was sent: a controller reset (CC.EN 1 -> 0),
//       shutdown (CC.SHN) or NVM Subsystem Reset aborts outstanding commands without completing
//       them (NVMe Base 3.7).
//     * commands on a connection the target closed for a reason the host gave it: after a
//       Property Set (above), a Disconnect on the I/O queue, Set Features Keep Alive Timer (a
//       KATO the host's keep-alives may not meet), or its admin queue closing (an I/O queue).
//       A connection closed for any other reason is a failure.
//   After the input, the host keeps the association alive for up to kDrainTurns turns; a
//   command not allowed to wait and still unanswered then is a failure.
// - once the host hangs up, every controller is gone, and once the target is destroyed nothing
//   keeps its namespaces' devices alive.
// On a failure the association's commands in flight are printed before the abort;
// SKIFF_FUZZ_TRACE=1 prints every command and completion as they happen.
#include "fuzz_input.hpp"
#include "fuzz_limits.hpp"
#include "fuzz_target.hpp"
#include "tcp/tcp_queue_pair.hpp"
#include "tcp_host.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"

#include <nvme/types.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

using namespace skiff;
namespace w = nvmeof::wire;
using fuzz::TcpHost;

namespace {

constexpr int kSetupTurns = 64;   // for one set-up step's answer
constexpr int kDrainTurns = 1000; // after the input: 10 s of simulated time
constexpr int kSlotTurns = 200;   // waiting for a free queue slot before a command is dropped
constexpr uint64_t kTurnMs = 10;
constexpr uint32_t kAdminInCapsule = 8192; // NVMe/TCP: every admin queue takes 8 KiB in-capsule

const bool kTrace = std::getenv("SKIFF_FUZZ_TRACE") != nullptr;

void print_command(const char *what, uint16_t qid, const TcpHost::Command &c) {
    std::fprintf(stderr,
                 "%s queue %u cid %u opcode %#04x flags %#04x nsid %#x cdw10-15 %#x %#x %#x %#x %#x %#x "
                 "sgl %s %u bytes%s\n",
                 what, qid, c.sqe.cid, c.sqe.opcode, c.sqe.flags, c.sqe.nsid, c.sqe.cdw10, c.sqe.cdw11,
                 c.sqe.cdw12, c.sqe.cdw13, c.sqe.cdw14, c.sqe.cdw15,
                 c.in_capsule ? "in-capsule" : "transport", c.len, c.may_wait ? " (may wait)" : "");
}

// One queue: the target's connection and the host's end of the same socketpair.
struct Link {
    Link(fuzz::FuzzTarget &ft, uint16_t qid_, TcpHost::OnCompletion on_completion) : qid(qid_) {
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
        fcntl(fds[1], F_SETFL, O_NONBLOCK);
        qp = std::make_unique<nvmeof::tcp::TcpQueuePair>(fds[0], "fuzz", ft.target, ft.port);
        host = std::make_unique<TcpHost>(fds[1], qid, std::move(on_completion));
    }
    uint16_t qid;
    std::unique_ptr<nvmeof::tcp::TcpQueuePair> qp;
    std::unique_ptr<TcpHost> host;
    uint16_t entries = 0; // SQSIZE + 1 once connected
    uint16_t next_cid = 0;
    bool close_explained = false;   // the host gave the target a reason to close this queue
    std::optional<w::Cqe> last_cqe; // the set-up's answers
};

class Association {
  public:
    Association(fuzz::FuzzTarget &ft, fuzz::Input &in) : ft_(ft), in_(in) {}

    void run() {
        if (!set_up()) return;
        while (!in_.empty()) record();
        drain();
        check_unanswered();
        hang_up();
    }

  private:
    // ---- set-up ---------------------------------------------------------------------------
    bool set_up() {
        uint8_t opts = in_.u8();
        uint8_t admin_sel = in_.u8(), io_sel = in_.u8(), kato_sel = in_.u8();
        static constexpr uint32_t kKato[] = {0, 500, 3000, 0};
        kato_ms_ = kKato[kato_sel % 4];
        const auto &l = ft_.target.limits();
        uint16_t admin_sqsize = static_cast<uint16_t>(1 + admin_sel % (l.max_admin_queue_depth - 1));
        uint16_t io_sqsize = static_cast<uint16_t>(1 + io_sel % (l.max_queue_depth - 1));
        bool hd = opts & 1, dd = opts & 2, sqfc_off = opts & 0x10;
        uint8_t hpda = (opts >> 2) & 3;

        admin_ = std::make_unique<Link>(ft_, 0, completion_handler(0));
        if (!bring_up(*admin_, hd, dd, hpda, sqfc_off, admin_sqsize, 0xFFFF, opts & 0x20)) return false;
        cntlid_ = static_cast<uint16_t>(admin_->last_cqe->result);
        // CC: EN, IOSQES 6, IOCQES 4; then CSTS.RDY.
        expect_success(*admin_, property(true, w::kPropCc, 1 | (6u << 16) | (4u << 20)));
        auto csts = run_setup_command(*admin_, property(false, w::kPropCsts, 0));
        SKIFF_FUZZ_CHECK(csts.status == 0 && (csts.result & 1) == 1);
        identify_controller();

        io_ = std::make_unique<Link>(ft_, 1, completion_handler(1));
        return bring_up(*io_, hd, dd, hpda, sqfc_off, io_sqsize, cntlid_, opts & 0x40);
    }

    bool bring_up(Link &link, bool hd, bool dd, uint8_t hpda, bool sqfc_off, uint16_t sqsize, uint16_t cntlid,
                  bool connect_by_r2t) {
        link.host->send_icreq(hd, dd, hpda);
        for (int i = 0; i < kSetupTurns && !link.host->ic_done(); ++i) turn();
        SKIFF_FUZZ_CHECK(link.host->ic_done());
        SKIFF_FUZZ_CHECK(link.host->hdgst() == hd && link.host->ddgst() == dd); // skiff grants both
        link.host->set_sq_flow_control_disabled(sqfc_off);
        w::Sqe sqe{};
        auto &c = reinterpret_cast<w::ConnectCmd &>(sqe);
        c.opcode = w::kFabricsOpcode;
        c.flags = w::kPsdtSgl;
        c.fctype = w::kFctConnect;
        c.qid = link.qid;
        c.sqsize = sqsize;
        c.cattr = sqfc_off ? 0x04 : 0;
        c.kato = link.qid == 0 ? kato_ms_ : 0;
        nvmf_connect_data d{};
        std::memset(d.hostid, 0x5a, 16);
        d.cntlid = cntlid;
        std::strncpy(d.subsysnqn, fuzz::kSubNqn.c_str(), sizeof(d.subsysnqn) - 1);
        std::strncpy(d.hostnqn, fuzz::kHostNqn.c_str(), sizeof(d.hostnqn) - 1);
        // The Connect data goes in the capsule when it fits the queue's in-capsule size (as Linux
        // sends it), else (or when the input says so) by R2T.
        bool in_capsule = !connect_by_r2t && sizeof(d) <= in_capsule_limit(link);
        auto cqe = run_setup_command(link, sqe, in_capsule, {reinterpret_cast<uint8_t *>(&d), sizeof(d)});
        if (cqe.status != 0)
            std::fprintf(stderr, "Connect queue %u failed: status %#x\n", link.qid, cqe.status);
        SKIFF_FUZZ_CHECK(cqe.status == 0);
        link.entries = static_cast<uint16_t>(sqsize + 1);
        return true;
    }

    void identify_controller() {
        w::Sqe sqe{};
        sqe.opcode = nvme_admin_identify;
        sqe.flags = w::kPsdtSgl;
        sqe.cdw10 = NVME_IDENTIFY_CNS_CTRL;
        sqe = with_cid(*admin_, sqe);
        admin_->host->submit(sqe, false, NVME_IDENTIFY_DATA_SIZE, {});
        uint16_t cid = sqe.cid;
        identify_ = {};
        for (int i = 0; i < kSetupTurns && admin_->host->in_flight().count(cid); ++i) turn();
        SKIFF_FUZZ_CHECK(identify_.has_value() && identify_status_ == 0);
        const auto &id = *identify_;
        // MDTS 0: no limit of the controller's; the host still keeps to the fuzz target's largest.
        mdts_bytes_ = id.mdts ? 4096u << id.mdts : 1u << 20;
        SKIFF_FUZZ_CHECK(id.ioccsz >= 4);
        io_in_capsule_ = id.ioccsz * 16 - 64;
        aer_limit_ = id.aerl + 1u;
    }

    w::Sqe property(bool set, uint32_t offset, uint64_t value) {
        w::Sqe sqe{};
        auto &p = reinterpret_cast<w::PropertyCmd &>(sqe);
        p.opcode = w::kFabricsOpcode;
        p.flags = w::kPsdtSgl;
        p.fctype = set ? w::kFctPropertySet : w::kFctPropertyGet;
        p.offset = offset;
        p.value = value;
        return sqe;
    }

    w::Cqe run_setup_command(Link &link, w::Sqe sqe, bool in_capsule = false,
                             std::span<const uint8_t> data = {}) {
        sqe = with_cid(link, sqe);
        link.last_cqe.reset();
        link.host->submit(sqe, in_capsule, static_cast<uint32_t>(data.size()), data);
        for (int i = 0; i < kSetupTurns && !link.last_cqe; ++i) turn();
        SKIFF_FUZZ_CHECK(link.last_cqe.has_value());
        return *link.last_cqe;
    }
    void expect_success(Link &link, const w::Sqe &sqe) {
        SKIFF_FUZZ_CHECK(run_setup_command(link, sqe).status == 0);
    }

    // ---- the input's records ---------------------------------------------------------------
    void record() {
        uint8_t what = in_.u8();
        Link &link = (what & 1) ? *io_ : *admin_;
        switch ((what >> 1) & 3) {
        case 0:
        case 1:
            return command(link);
        case 2:
            return keep_alive();
        case 3:
            for (int n = in_.u8() % 64 + 1; n > 0; --n) turn();
            return;
        }
    }

    void command(Link &link) {
        w::Sqe sqe{};
        sqe.opcode = in_.u8();
        uint8_t f = in_.u8();
        sqe.flags =
            static_cast<uint8_t>((f & w::kFuseMask) | ((f & 0x20) ? (f & w::kPsdtMask) : w::kPsdtSgl));
        static constexpr uint32_t kNsids[] = {0, 1, 2, 0xFFFFFFFF};
        uint8_t ns = in_.u8();
        sqe.nsid = ns < 4 ? kNsids[ns] : in_.u32();
        sqe.cdw10 = in_.u32(), sqe.cdw11 = in_.u32(), sqe.cdw12 = in_.u32();
        sqe.cdw13 = in_.u32(), sqe.cdw14 = in_.u32(), sqe.cdw15 = in_.u32();
        uint8_t mode = in_.u8() & 3;
        uint32_t raw_len = in_.u32();
        uint8_t fill = in_.u8();
        auto given = in_.chunk();
        bool in_capsule = mode == 1;
        uint32_t limit = mode == 0    ? 0
                         : in_capsule ? std::min(in_capsule_limit(link), mdts_bytes_)
                                      : mdts_bytes_;
        uint32_t len = raw_len % (limit + 1);
        std::vector<uint8_t> data(len, fill);
        if (!given.empty() && len)
            std::memcpy(data.data(), given.data(), std::min<size_t>(given.size(), len));
        submit(link, sqe, in_capsule, data);
    }

    void keep_alive() {
        w::Sqe sqe{};
        sqe.opcode = nvme_admin_keep_alive;
        sqe.flags = w::kPsdtSgl;
        submit(*admin_, sqe, false, {});
    }

    // Sends a command once the queue has room for it (the admin queue keeps one entry for the
    // host's own Keep Alive); dropped if no room comes, or the queue is gone.
    void submit(Link &link, w::Sqe sqe, bool in_capsule, std::span<const uint8_t> data) {
        size_t room = link.qid == 0 ? link.entries - 1u : link.entries;
        if (link.qid == 0 && sqe.opcode == nvme_admin_keep_alive) room = link.entries;
        for (int i = 0; i < kSlotTurns && usable(link) && link.host->in_flight().size() >= room; ++i) turn();
        if (!usable(link) || link.host->in_flight().size() >= room) return;
        note_reasons(link, sqe);
        sqe = with_cid(link, sqe);
        auto &c = link.host->submit(sqe, in_capsule, static_cast<uint32_t>(data.size()), data);
        c.may_wait = may_wait(link, c.sqe);
        if (kTrace) print_command("sent", link.qid, c);
        if (link.qid == 0 && sqe.opcode == nvme_admin_keep_alive) last_keep_alive_ms_ = now_ms_;
        // A later command on the I/O queue ends a fused first half's right to wait.
        if (link.qid != 0)
            for (auto &[cid, other] : link.host->in_flight())
                if (other.seq != c.seq && (other.sqe.flags & w::kFuseMask) == 1 && !other.forgiven)
                    other.may_wait = false;
    }

    // Reasons the host gives the target to end commands or connections without an answer.
    void note_reasons(Link &link, const w::Sqe &sqe) {
        uint8_t fctype = static_cast<uint8_t>(sqe.nsid & 0xFF); // byte 4 of a fabrics command
        if (link.qid == 0 && sqe.opcode == w::kFabricsOpcode && fctype == w::kFctPropertySet) {
            // A reset or shutdown may abort everything in flight.
            for (Link *l : {admin_.get(), io_.get()}) {
                for (auto &[cid, c] : l->host->in_flight()) c.may_wait = c.forgiven = true;
                l->close_explained = true;
            }
        }
        if (link.qid != 0 && sqe.opcode == w::kFabricsOpcode && fctype == w::kFctDisconnect)
            link.close_explained = true;
        if (link.qid == 0 && sqe.opcode == nvme_admin_set_features &&
            (sqe.cdw10 & 0xFF) == NVME_FEAT_FID_KATO)
            admin_->close_explained = io_->close_explained = true;
    }

    bool may_wait(const Link &link, const w::Sqe &sqe) const {
        if (link.qid == 0 && sqe.opcode == nvme_admin_async_event) return true; // limit: check_unanswered
        if (link.qid != 0 && (sqe.flags & w::kFuseMask) == 1) return true;      // until the next SQE
        return false;
    }

    w::Sqe with_cid(Link &link, w::Sqe sqe) {
        while (link.host->in_flight().count(link.next_cid)) ++link.next_cid;
        sqe.cid = link.next_cid++;
        return sqe;
    }

    bool usable(const Link &link) const { return !link.host->closed() && !link.qp->finished(); }
    uint32_t in_capsule_limit(const Link &link) const {
        return link.qid == 0 ? kAdminInCapsule : io_in_capsule_;
    }

    TcpHost::OnCompletion completion_handler(uint16_t qid) {
        return [this, qid](const TcpHost::Command &c, const w::Cqe &cqe) {
            Link &link = qid == 0 ? *admin_ : *io_;
            link.last_cqe = cqe;
            if (kTrace) {
                std::fprintf(stderr, "done status %#06x result %#llx: ", cqe.status,
                             static_cast<unsigned long long>(cqe.result));
                print_command("", qid, c);
            }
            if (qid == 0 && c.sqe.opcode == nvme_admin_identify && c.sqe.cdw10 == NVME_IDENTIFY_CNS_CTRL &&
                !identify_) {
                identify_.emplace();
                std::memcpy(&*identify_, c.data.data(), std::min(c.data.size(), sizeof(nvme_id_ctrl)));
                identify_status_ = cqe.status;
            }
        };
    }

    // ---- the association's clock ------------------------------------------------------------
    void turn() {
        now_ms_ += kTurnMs;
        for (Link *l : {admin_.get(), io_.get()}) {
            if (!l) continue;
            auto &qp = *l->qp;
            qp.on_readable();
            for (int i = 0; i < 8 && qp.progress(); ++i) {
            }
            qp.poll(now_ms_);
            l->host->pump();
            if (l->host->term_req())
                fail("the target sent a C2HTermReq (FES %#x) to a correct host", l->host->term_fes());
            if (l->host->closed() && !l->close_explained && !(l->qid != 0 && !usable(*admin_)) &&
                !hanging_up_)
                fail("the target closed queue %u without a reason from the host", l->qid);
        }
        keep_alive_if_due();
    }

    void keep_alive_if_due() {
        if (kato_ms_ == 0 || in_keep_alive_ || !admin_ || !admin_->entries || hanging_up_) return;
        if (now_ms_ - last_keep_alive_ms_ < kato_ms_ / 2) return;
        for (auto &[cid, c] : admin_->host->in_flight())
            if (c.sqe.opcode == nvme_admin_keep_alive) return; // one at a time
        in_keep_alive_ = true;
        keep_alive();
        in_keep_alive_ = false;
    }

    // ---- the end ------------------------------------------------------------------------------
    bool waiting_only_allowed() const {
        for (const Link *l : {admin_.get(), io_.get()}) {
            if (!usable(*l)) continue;
            for (auto &[cid, c] : l->host->in_flight())
                if (!c.may_wait) return false;
        }
        return true;
    }

    void drain() {
        for (int i = 0; i < kDrainTurns && !waiting_only_allowed(); ++i) turn();
    }

    void check_unanswered() {
        size_t aers = 0;
        for (auto &[cid, c] : admin_->host->in_flight())
            if (c.sqe.opcode == nvme_admin_async_event && !c.forgiven) ++aers;
        if (usable(*admin_) && aers > aer_limit_)
            fail("%zu AERs in flight, above the limit %u", aers, aer_limit_);
        if (!waiting_only_allowed()) fail("commands still unanswered %d turns after the input", kDrainTurns);
    }

    void hang_up() {
        hanging_up_ = true;
        io_->host->hang_up();
        admin_->host->hang_up();
        for (int i = 0; i < 16 && !(io_->qp->finished() && admin_->qp->finished()); ++i) turn();
        io_->qp->close("fuzz input done");
        admin_->qp->close("fuzz input done");
        SKIFF_FUZZ_CHECK(io_->qp->finished() && admin_->qp->finished());
        io_.reset();
        admin_.reset();
    }

    template <typename... Args>
    [[noreturn]] void fail(const char *fmt, Args... args) {
        std::fprintf(stderr, "tcp_association: ");
        std::fprintf(stderr, fmt, args...);
        std::fprintf(stderr, "\n");
        for (const Link *l : {admin_.get(), io_.get()}) {
            if (!l) continue;
            std::fprintf(stderr, "  queue %u (%u entries, %s): %zu in flight\n", l->qid, l->entries,
                         usable(*l) ? "open" : "closed", l->host->in_flight().size());
            for (auto &[cid, c] : l->host->in_flight()) print_command("   ", l->qid, c);
        }
        fuzz::check_failed("association property (above)", __FILE__, __LINE__);
    }

    fuzz::FuzzTarget &ft_;
    fuzz::Input &in_;
    std::unique_ptr<Link> admin_, io_;
    uint16_t cntlid_ = 0;
    uint32_t kato_ms_ = 0;
    uint64_t now_ms_ = 1000, last_keep_alive_ms_ = 1000;
    bool in_keep_alive_ = false, hanging_up_ = false;
    std::optional<nvme_id_ctrl> identify_;
    uint16_t identify_status_ = 0;
    uint32_t mdts_bytes_ = 4096, io_in_capsule_ = 0, aer_limit_ = 1;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz::Input in(data, size);
    std::vector<std::weak_ptr<nvmeof::target::BlockDevice>> devices;
    {
        fuzz::FuzzTarget ft(fuzz::draw_limits(in));
        Association(ft, in).run();
        SKIFF_FUZZ_CHECK(ft.target.controller_count() == 0);
        devices = ft.devices;
    }
    // With the target gone, its namespaces' devices must be too, once the channel table of the
    // thread's inline context drops its closed namespaces (a poll group's loop does it now and then).
    nvmeof::target::PollContext::inline_context().sweep_channels();
    for (const auto &d : devices) SKIFF_FUZZ_CHECK(d.expired());
    return 0;
}
