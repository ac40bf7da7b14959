// NVM I/O commands: Read, Write, Compare, fused Compare and Write, Flush, Write Zeroes,
// Dataset Management. Parse checks everything (namespace, LBA range, transfer length); the
// handlers then only move bytes through the namespace's block device.
#include "commands.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

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

void execute_read(Request &req) {
    uint16_t st = req.ns->device().read(byte_offset(req), req.buf, req.data_len);
    if (st == 0) req.queue->io_counters().count_read(req.data_len);
    finish(req, st);
}

void execute_write(Request &req) {
    uint16_t st = req.ns->device().write(byte_offset(req), req.buf, req.data_len);
    if (st == 0) req.queue->io_counters().count_write(req.data_len);
    finish(req, st);
}

void execute_compare(Request &req) {
    bool equal = false;
    uint16_t st = req.ns->device().compare(byte_offset(req), req.buf, req.data_len, equal);
    if (st == 0 && !equal) st = wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
    finish(req, st);
}

void execute_flush(Request &req) {
    if (req.ns) return finish(req, req.ns->device().flush());
    // Broadcast flush (nsid FFFFFFFFh): every namespace.
    Subsystem &subsys = req.queue->controller()->subsystem();
    uint16_t st = 0;
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces && st == 0; ++nsid)
        if (Namespace *ns = subsys.find_namespace(nsid)) st = ns->device().flush();
    finish(req, st);
}

void execute_write_zeroes(Request &req) {
    uint64_t len = static_cast<uint64_t>(req.cmd.nlb()) << req.ns->block_shift();
    BlockDevice &dev = req.ns->device();
    finish(req, (req.cmd.cdw12 & kWriteZeroesDeallocate) ? dev.deallocate(byte_offset(req), len)
                                                         : dev.write_zeroes(byte_offset(req), len));
}

void execute_dsm(Request &req) {
    uint32_t nr = (req.cmd.cdw10 & 0xFF) + 1;
    if (!(req.cmd.cdw11 & kDsmDeallocate)) return finish(req, 0); // hints only: nothing to do
    const auto *ranges = reinterpret_cast<const nvme_dsm_range *>(req.buf);
    Namespace &ns = *req.ns;
    // Check every range before touching any, so a bad range changes nothing.
    for (uint32_t i = 0; i < nr; ++i)
        if (!ns.contains(ranges[i].slba, ranges[i].nlb))
            return finish(req, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true));
    for (uint32_t i = 0; i < nr; ++i) {
        uint16_t st = ns.device().deallocate(ranges[i].slba << ns.block_shift(),
                                             static_cast<uint64_t>(ranges[i].nlb) << ns.block_shift());
        if (st) return finish(req, st);
    }
    finish(req, 0);
}

// Fused Compare and Write: runs once both halves have their data, holding the namespace's I/O
// gate exclusively so no other I/O (on any poll group) interleaves. Returns false when the
// gate is held by another Compare and Write (the caller defers and retries).
bool run_compare_and_write(Request &cmp, Request &wr) {
    IoGate &gate = cmp.ns->gate();
    if (!gate.enter_exclusive()) return false;
    bool equal = false;
    uint16_t st = cmp.ns->device().compare(byte_offset(cmp), cmp.buf, cmp.data_len, equal);
    if (st == 0 && !equal) st = wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
    if (st == 0) {
        wr.set_status(wr.ns->device().write(byte_offset(wr), wr.buf, wr.data_len));
        if (wr.status() == 0) wr.queue->io_counters().count_write(wr.data_len);
    } else {
        wr.fail(NVME_SCT_GENERIC, NVME_SC_FUSED_FAIL);
    }
    gate.leave_exclusive();
    cmp.set_status(st);
    cmp.fused_waiting = wr.fused_waiting = false;
    complete(cmp);
    complete(wr);
    return true;
}

void execute_fused_half(Request &req) {
    Request *partner = req.fused_partner;
    if (req.failed()) return complete(req); // its partner never came (set by Queue::prepare)
    if (!partner || !partner->data_ready) {
        req.fused_waiting = true;
        return;
    }
    bool first = req.cmd.fuse() == 1;
    if (!run_compare_and_write(first ? req : *partner, first ? *partner : req)) req.queue->defer(req);
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
    Subsystem &subsys = req.queue->controller()->subsystem();
    if (c.opcode == nvme_cmd_flush && c.nsid == 0xFFFFFFFF) {
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_flush;
        return true;
    }
    req.ns = subsys.find_namespace(c.nsid);
    if (!req.ns) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
    if (c.fuse()) return parse_fused(req);

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
    default:
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
    }
}

} // namespace skiff::nvmeof::target::detail
