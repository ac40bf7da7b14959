// Admin commands of I/O controllers (and the few a discovery controller accepts):
// Get/Set Features, Keep Alive, Asynchronous Event Request, Abort. Identify and Get Log Page
// have their own files.
#include "commands.hpp"
#include "identify.hpp"
#include "reservation_cmd.hpp"
#include "skiff/core/log.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

void execute_done(Request &req) {
    complete(req);
}

void execute_set_features(Request &req) {
    Controller &ctrl = *req.queue->controller();
    uint8_t fid = req.cmd.cdw10 & 0xFF;
    uint32_t v = req.cmd.cdw11;
    switch (fid) {
    case NVME_FEAT_FID_NUM_QUEUES: {
        uint32_t nsqr = v & 0xFFFF, ncqr = v >> 16;
        if (nsqr == 0xFFFF || ncqr == 0xFFFF)
            return (void)(req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD), complete(req));
        uint32_t granted = std::min<uint32_t>(std::min(nsqr, ncqr) + 1, ctrl.limits().max_io_queues);
        ctrl.set_io_queues(static_cast<uint16_t>(granted));
        req.cqe.result = (granted - 1) | ((granted - 1) << 16);
        break;
    }
    case NVME_FEAT_FID_KATO:
        ctrl.set_kato_ms(v);
        break;
    case NVME_FEAT_FID_ASYNC_EVENT:
        ctrl.async_event_config = v;
        break;
    case NVME_FEAT_FID_VOLATILE_WC:
        ctrl.volatile_write_cache = v & 1;
        break;
    case NVME_FEAT_FID_RESV_MASK:
    case NVME_FEAT_FID_RESV_PERSIST:
        req.set_status(set_reservation_feature(req));
        break;
    default:
        req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    }
    complete(req);
}

void execute_get_features(Request &req) {
    Controller &ctrl = *req.queue->controller();
    uint8_t fid = req.cmd.cdw10 & 0xFF;
    switch (fid) {
    case NVME_FEAT_FID_NUM_QUEUES:
        req.cqe.result = (ctrl.io_queues() - 1u) | ((ctrl.io_queues() - 1u) << 16);
        break;
    case NVME_FEAT_FID_KATO:
        req.cqe.result = ctrl.kato_ms();
        break;
    case NVME_FEAT_FID_ASYNC_EVENT:
        req.cqe.result = ctrl.async_event_config;
        break;
    case NVME_FEAT_FID_VOLATILE_WC:
        req.cqe.result = ctrl.volatile_write_cache ? 1 : 0;
        break;
    case NVME_FEAT_FID_HOST_ID:
        std::memcpy(req.buf, ctrl.hostid().data(), 16);
        break;
    case NVME_FEAT_FID_RESV_MASK:
    case NVME_FEAT_FID_RESV_PERSIST:
        req.set_status(get_reservation_feature(req));
        break;
    default:
        req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    }
    complete(req);
}

// The features this controller implements (Get and Set).
bool feature_supported(uint8_t fid) {
    switch (fid) {
    case NVME_FEAT_FID_NUM_QUEUES:
    case NVME_FEAT_FID_KATO:
    case NVME_FEAT_FID_ASYNC_EVENT:
    case NVME_FEAT_FID_VOLATILE_WC:
    case NVME_FEAT_FID_HOST_ID:
    case NVME_FEAT_FID_RESV_MASK:
    case NVME_FEAT_FID_RESV_PERSIST:
        return true;
    default:
        return false;
    }
}

bool parse_features(Request &req, bool set) {
    uint8_t fid = req.cmd.cdw10 & 0xFF;
    // The identifier first: an unsupported feature is Invalid Field whatever data the host sent
    // with it (LBA Range Type, Timestamp, ... carry a buffer; its length is not the error).
    if (!feature_supported(fid)) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (set && fid == NVME_FEAT_FID_HOST_ID) // over fabrics it comes from Connect, fixed
        return fail(req, NVME_SCT_GENERIC, NVME_SC_CMD_SEQ_ERROR);
    if (set && (req.cmd.cdw10 & (1u << 31)))
        return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_FEATURE_NOT_SAVEABLE);
    if (!set && ((req.cmd.cdw10 >> 8) & 0x7) == 2) // saved values: there are none
        return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_FEATURE_NOT_SAVEABLE);
    if (!set && fid == NVME_FEAT_FID_HOST_ID) {
        if (!(req.cmd.cdw11 & 1))
            return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD); // 64-bit id: unsupported
        if (!expect_transfer(req, 16, DataDir::kCtrlToHost)) return false;
    } else if (!expect_transfer(req, 0, DataDir::kNone)) {
        return false;
    }
    req.execute = set ? execute_set_features : execute_get_features;
    return true;
}

void execute_async_event(Request &req) {
    if (!req.queue->controller()->park_aer(req)) {
        req.fail(NVME_SCT_CMD_SPECIFIC, NVME_SC_ASYNC_LIMIT);
        complete(req);
    }
    // Parked: completes from Queue::poll() when an event fires.
}

void execute_abort(Request &req) {
    req.cqe.result = 1; // "not aborted": commands here run to completion quickly
    complete(req);
}

// Admin commands both controller kinds accept.
bool parse_common_admin(Request &req, bool &handled) {
    handled = true;
    switch (req.cmd.opcode) {
    case nvme_admin_keep_alive:
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_done; // the command itself refreshed the timer
        return true;
    case nvme_admin_identify:
        return parse_identify(req);
    case nvme_admin_get_log_page:
        return parse_get_log_page(req);
    case nvme_admin_set_features:
        return parse_features(req, true);
    case nvme_admin_get_features:
        return parse_features(req, false);
    case nvme_admin_async_event:
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_async_event;
        return true;
    default:
        handled = false;
        return false;
    }
}

} // namespace

bool parse_admin(Request &req) {
    if (req.cmd.fuse()) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (!check_ready(req)) return false;
    bool handled;
    bool ok = parse_common_admin(req, handled);
    if (handled) return ok;
    switch (req.cmd.opcode) {
    case nvme_admin_abort_cmd:
        if (!expect_transfer(req, 0, DataDir::kNone)) return false;
        req.execute = execute_abort;
        return true;
    default:
        skiff::log::get("nvmeof")->debug("admin opcode {:#x} is not supported", req.cmd.opcode);
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
    }
}

bool parse_discovery_admin(Request &req) {
    if (req.cmd.fuse()) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    if (!check_ready(req)) return false;
    bool handled;
    bool ok = parse_common_admin(req, handled);
    if (handled) return ok;
    return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_OPCODE);
}

} // namespace skiff::nvmeof::target::detail
