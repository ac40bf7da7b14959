// NVM I/O commands: Read, Write, Compare, fused Compare and Write, Flush, Write Zeroes,
// Dataset Management; Copy and Verify have files of their own (copy_cmd.cpp, verify_cmd.cpp).
// Parse checks everything (namespace, LBA range, transfer length); the handlers then only
// submit I/O to the namespace's channel on this poll group (backend_io.hpp), and complete the
// command from the I/O's completion (which may come later, from the group's loop).
#include "ana.hpp"
#include "backend_io.hpp"
#include "commands.hpp"
#include "reservation_cmd.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <utility>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint32_t kWriteZeroesDeallocate = 1u << 25; // CDW12 DEAC
constexpr uint32_t kDsmDeallocate = 1u << 2;          // CDW11 AD
constexpr uint32_t kMaxDsmRanges = 256;

uint64_t byte_offset(const Request &req) {
    return req.cmd.slba() << req.ns->block_shift();
}

void finish(Request &req, uint16_t status) {
    req.set_status(status);
    complete(req);
}

void read_done(Request &req, uint16_t st) {
    if (st == 0) req.queue->io_counters().count_read(req.data_len);
    finish(req, st);
}

void write_done(Request &req, uint16_t st) {
    if (st == 0) req.queue->io_counters().count_write(req.data_len);
    finish(req, st);
}

void execute_read(Request &req) {
    submit_io(req, *req.ns, IoOp::kRead, byte_offset(req), req.data_len, req.buf, read_done);
}

void execute_write(Request &req) {
    submit_io(req, *req.ns, IoOp::kWrite, byte_offset(req), req.data_len, req.buf, write_done);
}

void execute_compare(Request &req) {
    submit_io(req, *req.ns, IoOp::kCompare, byte_offset(req), req.data_len, req.buf, finish);
}

// Broadcast flush (nsid FFFFFFFFh): one namespace after the other; req.step is the last nsid
// flushed.
void flush_next(Request &req, uint16_t st) {
    Controller *ctrl = req.queue->controller();
    if (st != 0 || !ctrl) return finish(req, st);
    while (req.step < kMaxNamespaces) {
        Namespace *ns = ctrl->find_namespace(++req.step); // the namespaces this host sees
        if (ns) return submit_io(req, *ns, IoOp::kFlush, 0, 0, nullptr, flush_next);
    }
    finish(req, 0);
}

void execute_flush(Request &req) {
    if (req.ns) return submit_io(req, *req.ns, IoOp::kFlush, 0, 0, nullptr, finish);
    req.step = 0;
    flush_next(req, 0);
}

void execute_write_zeroes(Request &req) {
    uint64_t len = static_cast<uint64_t>(req.cmd.nlb()) << req.ns->block_shift();
    // Deallocating is only a way to zero when deallocated blocks read back as zeroes.
    bool deac = (req.cmd.cdw12 & kWriteZeroesDeallocate) &&
                req.ns->device().deallocate_mode() == DeallocateMode::kReadsZeroes;
    submit_io(req, *req.ns, deac ? IoOp::kDeallocate : IoOp::kWriteZeroes, byte_offset(req), len, nullptr,
              finish);
}

// Dataset Management, deallocate: one range after the other; req.step is the next range.
void dsm_next(Request &req, uint16_t st) {
    uint32_t nr = (req.cmd.cdw10 & 0xFF) + 1;
    if (st != 0 || req.step == nr) return finish(req, st);
    const auto *ranges = reinterpret_cast<const nvme_dsm_range *>(req.buf);
    Namespace &ns = *req.ns;
    const nvme_dsm_range &r = ranges[req.step++];
    if (r.nlb == 0) return dsm_next(req, 0);
    submit_io(req, ns, IoOp::kDeallocate, static_cast<uint64_t>(r.slba) << ns.block_shift(),
              static_cast<uint64_t>(r.nlb) << ns.block_shift(), nullptr, dsm_next);
}

void execute_dsm(Request &req) {
    uint32_t nr = (req.cmd.cdw10 & 0xFF) + 1;
    // Deallocate is advisory: a device that cannot do it has nothing to do.
    if (!(req.cmd.cdw11 & kDsmDeallocate) ||
        req.ns->device().deallocate_mode() == DeallocateMode::kUnsupported)
        return finish(req, 0);
    const auto *ranges = reinterpret_cast<const nvme_dsm_range *>(req.buf);
    // Check every range before touching any, so a bad range changes nothing.
    for (uint32_t i = 0; i < nr; ++i)
        if (!req.ns->contains(ranges[i].slba, ranges[i].nlb))
            return finish(req, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true));
    req.step = 0;
    dsm_next(req, 0);
}

// Fused Compare and Write: runs once both halves have their data, holding the namespace's I/O
// gate exclusively (from the compare until the write completes) so no other I/O, on any poll
// group, interleaves. The compare half's address is the gate's owner token. A device that does
// the pair atomically itself (BlockDevice::atomic_compare_and_write) gets it as one
// kCompareAndWrite instead, passing the gate shared like any other I/O.
void caw_complete(Request &cmp, Request &wr, uint16_t cmp_status) {
    cmp.ns->gate().leave_exclusive(&cmp);
    cmp.set_status(cmp_status);
    cmp.fused_waiting = wr.fused_waiting = false;
    complete(cmp);
    complete(wr);
}

void caw_write_done(Request &wr, uint16_t st) {
    wr.set_status(st);
    if (st == 0) wr.queue->io_counters().count_write(wr.data_len);
    caw_complete(*wr.fused_partner, wr, 0);
}

void caw_compare_done(Request &cmp, uint16_t st) {
    Request &wr = *cmp.fused_partner;
    if (st != 0) {
        wr.fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
        return caw_complete(cmp, wr, st);
    }
    submit_io(wr, *wr.ns, IoOp::kWrite, byte_offset(wr), wr.data_len, wr.buf, caw_write_done);
}

// The device did the pair in one atomic step (no gate held): a miscompare or any failure is
// the compare's status, and the write half is aborted with it.
void caw_atomic_done(Request &cmp, uint16_t st) {
    Request &wr = *cmp.fused_partner;
    if (st != 0) {
        wr.fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
    } else {
        wr.set_status(0);
        wr.queue->io_counters().count_write(wr.data_len);
    }
    cmp.set_status(st);
    cmp.fused_waiting = wr.fused_waiting = false;
    complete(cmp);
    complete(wr);
}

// Returns false while the gate is not (yet) ours: the caller defers and retries.
bool run_compare_and_write(Request &cmp) {
    Request &wr = *cmp.fused_partner;
    // A device that makes the pair atomic itself needs no exclusive gate: no other I/O stops
    // meanwhile. It passes the gate shared like any I/O, so it cannot land between the compare
    // and the write of a gated pair (a larger range) on the same namespace.
    if (cmp.ns->device().atomic_compare_and_write(byte_offset(cmp), cmp.data_len)) {
        if (!cmp.ns->gate().enter()) return false;
        cmp.holds_gate = true; // Queue::complete(cmp) leaves it
        submit_io(cmp, *cmp.ns, IoOp::kCompareAndWrite, byte_offset(cmp), cmp.data_len, cmp.buf,
                  caw_atomic_done, wr.buf);
        return true;
    }
    if (!cmp.ns->gate().try_exclusive(&cmp)) return false;
    submit_io(cmp, *cmp.ns, IoOp::kCompare, byte_offset(cmp), cmp.data_len, cmp.buf, caw_compare_done);
    return true;
}

void execute_fused_half(Request &req) {
    Request *partner = req.fused_partner;
    if (req.failed()) return complete(req); // its partner never came (set by Queue::prepare)
    if (!partner || !partner->data_ready) {
        req.fused_waiting = true;
        return;
    }
    if (!run_compare_and_write(req.cmd.fuse() == 1 ? req : *partner)) req.queue->defer(req);
}

bool parse_rw(Request &req, DataDir dir) {
    uint64_t nlb = req.cmd.nlb();
    if (!req.ns->contains(req.cmd.slba(), nlb)) return fail(req, NVME_SCT_GENERIC, NVME_SC_LBA_RANGE);
    return expect_transfer(req, static_cast<uint32_t>(nlb << req.ns->block_shift()), dir);
}

bool parse_fused(Request &req) {
    Queue &q = *req.queue;
    if (req.cmd.fuse() == 1) {
        if (req.cmd.opcode != nvme_cmd_compare) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
        if (!parse_rw(req, DataDir::kHostToCtrl)) return false;
        q.fused_first = &req;
        req.execute = execute_fused_half;
        return true;
    }
    Request *first = q.fused_first;
    q.fused_first = nullptr;
    if (!first) return fail(req, NVME_SCT_GENERIC, NVME_SC_FUSED_MISSING);
    bool ok = req.cmd.opcode == nvme_cmd_write && req.cmd.fuse() == 2 && req.cmd.nsid == first->cmd.nsid &&
              req.cmd.slba() == first->cmd.slba() && req.cmd.nlb() == first->cmd.nlb();
    ok = ok ? parse_rw(req, DataDir::kHostToCtrl) : fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (!ok) {
        // The pair fails together.
        first->fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
        if (first->fused_waiting) complete(*first);
        return false;
    }
    first->fused_partner = &req;
    req.fused_partner = first;
    req.execute = execute_fused_half;
    return true;
}

} // namespace

bool parse_io(Request &req) {
    if (!check_ready(req)) return false;
    const wire::Sqe &c = req.cmd;
    if (c.opcode == nvme_cmd_flush && c.nsid == 0xFFFFFFFF) {
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_flush;
        return true;
    }
    req.ns = req.queue->controller()->find_namespace(c.nsid); // hidden from this host: inactive
    if (!req.ns) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
    // A path that is not accessible (ANA), then the reservation, may refuse the command.
    uint16_t path_status = ana_io_status(*req.queue->controller(), *req.ns);
    if (path_status) req.set_status(path_status);
    if (path_status || !check_reservation_access(req)) {
        // A refused second half of a fused pair takes its first half with it (a refused first
        // half was never recorded, so its partner finds none: Missing Fused Command).
        Request *first = c.fuse() == 2 ? std::exchange(req.queue->fused_first, nullptr) : nullptr;
        if (first) {
            first->fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
            if (first->fused_waiting) complete(*first);
        }
        return false;
    }
    if (c.fuse()) return parse_fused(req);
    if (is_reservation_command(c.opcode)) return parse_reservation(req);

    switch (c.opcode) {
    case nvme_cmd_read:
        req.execute = execute_read;
        return parse_rw(req, DataDir::kCtrlToHost);
    case nvme_cmd_write:
        req.execute = execute_write;
        return parse_rw(req, DataDir::kHostToCtrl);
    case nvme_cmd_compare:
        req.execute = execute_compare;
        return parse_rw(req, DataDir::kHostToCtrl);
    case nvme_cmd_flush:
        req.execute = execute_flush;
        return expect_transfer(req, 0, DataDir::kNone);
    case nvme_cmd_write_zeroes:
        if (!req.ns->contains(c.slba(), c.nlb())) return fail(req, NVME_SCT_GENERIC, NVME_SC_LBA_RANGE);
        req.execute = execute_write_zeroes;
        return expect_transfer(req, 0, DataDir::kNone);
    case nvme_cmd_dsm: {
        uint32_t need = ((c.cdw10 & 0xFF) + 1) * sizeof(nvme_dsm_range);
        static_assert(kMaxDsmRanges * sizeof(nvme_dsm_range) == 4096);
        // Hosts may send the ranges in a larger buffer (nvmet_check_data_len_lte).
        if (req.data_len < need || req.data_len > 4096)
            return fail(req, NVME_SCT_GENERIC, NVME_SC_SGL_INVALID_DATA);
        req.dir = DataDir::kHostToCtrl;
        req.execute = execute_dsm;
        return true;
    }
    case nvme_cmd_verify:
        return parse_verify(req);
    case nvme_cmd_copy:
        return parse_copy(req);
    default:
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
    }
}

} // namespace skiff::nvmeof::target::detail
