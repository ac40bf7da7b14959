// Reservation commands (I/O queue): Register (0Dh), Report (0Eh), Acquire (11h), Release (15h);
// the access check every other I/O command passes; Get / Set Features Reservation Notification
// Mask (82h) and Reservation Persistence (83h); the Reservation Notification log page (80h).
// The rules themselves live in reservation.cpp; this file decodes commands and routes notices.
#include "commands.hpp"
#include "reservation_cmd.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint32_t kIekey = 1u << 3;

// Each notice goes to every controller of the host it names (they share the registration).
void deliver(Request &req, const ResvNotices &notices) {
    Subsystem &subsys = req.queue->controller()->subsystem();
    uint32_t nsid = req.ns->nsid();
    for (size_t i = 0; i < notices.count; ++i) {
        const auto &n = notices.list[i];
        subsys.for_each_controller([&](Controller &c) {
            if (c.hostid() == n.host) c.post_reservation_notice(nsid, n.rnlpt);
        });
    }
}

uint64_t data_u64(const Request &req, size_t off) {
    uint64_t v;
    std::memcpy(&v, req.buf + off, 8);
    return v;
}

void execute_register(Request &req) {
    uint32_t d = req.cmd.cdw10;
    ResvNotices notices;
    req.set_status(req.ns->reservation().reg(req.queue->controller()->hostid(), d & 7, d & kIekey, d >> 30,
                                             data_u64(req, 0), data_u64(req, 8), notices));
    deliver(req, notices);
    complete(req);
}

void execute_acquire(Request &req) {
    uint32_t d = req.cmd.cdw10;
    ResvNotices notices;
    req.set_status(req.ns->reservation().acquire(req.queue->controller()->hostid(), d & 7, d & kIekey,
                                                 (d >> 8) & 0xFF, data_u64(req, 0), data_u64(req, 8),
                                                 notices));
    deliver(req, notices);
    complete(req);
}

void execute_release(Request &req) {
    uint32_t d = req.cmd.cdw10;
    ResvNotices notices;
    req.set_status(req.ns->reservation().release(req.queue->controller()->hostid(), d & 7, d & kIekey,
                                                 (d >> 8) & 0xFF, data_u64(req, 0), notices));
    deliver(req, notices);
    complete(req);
}

void execute_report(Request &req) {
    req.set_status(req.ns->reservation().report(req.cmd.cdw11 & 1, req.buf, req.data_len));
    complete(req);
}

} // namespace

bool is_reservation_command(uint8_t opcode) {
    return opcode == nvme_cmd_resv_register || opcode == nvme_cmd_resv_report ||
           opcode == nvme_cmd_resv_acquire || opcode == nvme_cmd_resv_release;
}

bool check_reservation_access(Request &req) {
    bool write;
    switch (req.cmd.opcode) {
    case nvme_cmd_read:
    case nvme_cmd_compare:
    case nvme_cmd_verify:
        write = false;
        break;
    case nvme_cmd_write:
    case nvme_cmd_write_zeroes:
    case nvme_cmd_dsm:
    case nvme_cmd_flush:
    case nvme_cmd_copy: // it writes its destination
        write = true;
        break;
    default:
        return true; // the reservation commands apply their own rules
    }
    if (req.ns->reservation().allows(req.queue->controller()->hostid(), write)) return true;
    return fail(req, NVME_SCT_GENERIC, NVME_SC_RESERVATION_CONFLICT);
}

bool parse_reservation(Request &req) {
    switch (req.cmd.opcode) {
    case nvme_cmd_resv_register: // CRKEY, NRKEY
        req.execute = execute_register;
        return expect_transfer(req, 16, DataDir::kHostToCtrl);
    case nvme_cmd_resv_acquire: // CRKEY, PRKEY
        req.execute = execute_acquire;
        return expect_transfer(req, 16, DataDir::kHostToCtrl);
    case nvme_cmd_resv_release: // CRKEY
        req.execute = execute_release;
        return expect_transfer(req, 8, DataDir::kHostToCtrl);
    default: { // Report: NUMD is the 0's based number of dwords the host's buffer holds
        uint64_t len = (static_cast<uint64_t>(req.cmd.cdw10) + 1) * 4;
        if (len > req.buf_cap) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
        if (!expect_transfer(req, static_cast<uint32_t>(len), DataDir::kCtrlToHost)) return false;
        std::memset(req.buf, 0, len);
        req.execute = execute_report;
        return true;
    }
    }
}

uint16_t set_reservation_feature(Request &req) {
    Controller &ctrl = *req.queue->controller();
    uint8_t fid = req.cmd.cdw10 & 0xFF;
    uint32_t nsid = req.cmd.nsid;
    if (fid == NVME_FEAT_FID_RESV_MASK) {
        uint8_t mask = req.cmd.cdw11 & (NVME_FEAT_RESV_NOTIFY_REGPRE | NVME_FEAT_RESV_NOTIFY_RESREL |
                                        NVME_FEAT_RESV_NOTIFY_RESPRE);
        if (nsid == 0xFFFFFFFF) {
            for (uint32_t id = 1; id <= kMaxNamespaces; ++id) ctrl.set_resv_mask(id, mask);
            return 0;
        }
        if (!ctrl.find_namespace(nsid)) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_NS, true);
        ctrl.set_resv_mask(nsid, mask);
        return 0;
    }
    Namespace *ns = ctrl.find_namespace(nsid);
    if (!ns) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_NS, true);
    return ns->reservation().set_ptpl(req.cmd.cdw11 & 1);
}

uint16_t get_reservation_feature(Request &req) {
    Controller &ctrl = *req.queue->controller();
    Namespace *ns = ctrl.find_namespace(req.cmd.nsid);
    if (!ns) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_NS, true);
    uint8_t fid = req.cmd.cdw10 & 0xFF;
    req.cqe.result =
        fid == NVME_FEAT_FID_RESV_MASK ? ctrl.resv_mask(ns->nsid()) : (ns->reservation().ptpl() ? 1 : 0);
    return 0;
}

void log_reservation(Request &req, uint64_t offset, uint32_t len, bool retain) {
    size_t remaining = 0;
    Controller::ResvNotice n = req.queue->controller()->take_reservation_notice(remaining, retain);
    nvme_resv_notification_log page{};
    page.lpc = n.count;
    page.rnlpt = n.count ? n.rnlpt : uint8_t(NVME_RESV_NOTIFY_RNLPT_EMPTY);
    page.nalp = static_cast<uint8_t>(std::min<size_t>(remaining, 255));
    page.nsid = n.nsid;
    PageWindow(req.buf, offset, len).put(0, &page, sizeof(page));
    complete(req);
}

} // namespace skiff::nvmeof::target::detail
