// Get Log Page: error (01h), SMART / health (02h), firmware slot (03h), changed namespace
// list (04h), commands supported and effects (05h), ANA (0Ch, ana.cpp), reservation notification
// (80h, reservation_cmd.cpp), discovery (70h, discovery.cpp).
#include "commands.hpp"
#include "discovery.hpp"
#include "ana.hpp"
#include "reservation_cmd.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

struct LogArgs {
    uint8_t lid;
    bool retain; // RAE: keep asynchronous events (and the changed list) for another read
    uint64_t offset;
    uint32_t len;
};

LogArgs log_args(const Request &req) {
    const wire::Sqe &c = req.cmd;
    uint32_t numd = ((c.cdw11 & 0xFFFF) << 16 | (c.cdw10 >> 16)) + 1;
    return {static_cast<uint8_t>(c.cdw10 & 0xFF), log_retains_events(req),
            c.cdw12 | (static_cast<uint64_t>(c.cdw13) << 32), numd * 4};
}

// No errors are recorded: every entry reads as zero.
void log_error(Request &req) {
    complete(req);
}

void log_smart(Request &req) {
    nvme_smart_log smart{};
    uint16_t kelvin = 273 + 40;
    std::memcpy(smart.temperature, &kelvin, 2);
    smart.avail_spare = 100;
    smart.spare_thresh = 10;
    // Data units are thousands of 512-byte units, rounded up; 128-bit little-endian fields.
    IoTotals io = req.queue->controller()->io_totals();
    auto put128 = [](uint8_t *field, uint64_t v) { std::memcpy(field, &v, sizeof(v)); };
    put128(smart.data_units_read, (io.read_bytes / 512 + 999) / 1000);
    put128(smart.data_units_written, (io.write_bytes / 512 + 999) / 1000);
    put128(smart.host_reads, io.read_commands);
    put128(smart.host_writes, io.write_commands);
    LogArgs a = log_args(req);
    PageWindow(req.buf, a.offset, a.len).put(0, &smart, sizeof(smart));
    complete(req);
}

void log_firmware_slot(Request &req) {
    nvme_firmware_slot fw{};
    fw.afi = 1;
    const std::string &fr = req.queue->controller()->subsystem().identity().firmware;
    std::memset(fw.frs[0], ' ', sizeof(fw.frs[0]));
    std::memcpy(fw.frs[0], fr.data(), std::min(fr.size(), sizeof(fw.frs[0])));
    LogArgs a = log_args(req);
    PageWindow(req.buf, a.offset, a.len).put(0, &fw, sizeof(fw));
    complete(req);
}

void log_changed_namespaces(Request &req) {
    LogArgs a = log_args(req);
    Controller &ctrl = *req.queue->controller();
    ctrl.collect_namespace_changes();
    std::array<uint32_t, kMaxNamespaces> list{};
    size_t n = ctrl.read_changed_namespaces(list.data(), list.size(), a.retain);
    PageWindow(req.buf, a.offset, a.len).put(0, list.data(), n * sizeof(uint32_t));
    complete(req);
}

void log_command_effects(Request &req) {
    LogArgs a = log_args(req);
    PageWindow w(req.buf, a.offset, a.len);
    auto supported = [&](bool io, uint8_t opcode, uint32_t effects) {
        uint32_t v = NVME_CMD_EFFECTS_CSUPP | effects;
        w.put((io ? offsetof(nvme_cmd_effects_log, iocs) : offsetof(nvme_cmd_effects_log, acs)) + 4u * opcode,
              &v, 4);
    };
    for (uint8_t op :
         {nvme_admin_get_log_page, nvme_admin_identify, nvme_admin_abort_cmd, nvme_admin_set_features,
          nvme_admin_get_features, nvme_admin_async_event, nvme_admin_keep_alive})
        supported(false, op, 0);
    supported(true, nvme_cmd_flush, 0);
    supported(true, nvme_cmd_read, 0);
    supported(true, nvme_cmd_compare, 0);
    supported(true, nvme_cmd_verify, 0);
    supported(true, nvme_cmd_resv_register, 0);
    supported(true, nvme_cmd_resv_report, 0);
    supported(true, nvme_cmd_resv_acquire, 0);
    supported(true, nvme_cmd_resv_release, 0);
    for (uint8_t op : {nvme_cmd_write, nvme_cmd_write_zeroes, nvme_cmd_dsm, nvme_cmd_copy})
        supported(true, op, NVME_CMD_EFFECTS_LBCC);
    complete(req);
}

void log_reservation_notification(Request &req) {
    LogArgs a = log_args(req);
    log_reservation(req, a.offset, a.len, a.retain);
}

} // namespace

bool parse_get_log_page(Request &req) {
    LogArgs a = log_args(req);
    if (!expect_transfer(req, a.len, DataDir::kCtrlToHost)) return false;
    if (a.offset & 3) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    std::memset(req.buf, 0, a.len);
    bool discovery = req.queue->controller()->is_discovery();
    if (discovery) {
        if (a.lid != NVME_LOG_LID_DISCOVER) return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE);
        req.execute = execute_discovery_log;
        return true;
    }
    switch (a.lid) {
    case NVME_LOG_LID_ERROR:
        req.execute = log_error;
        return true;
    case NVME_LOG_LID_SMART:
        if (req.cmd.nsid != 0xFFFFFFFF && req.cmd.nsid != 0 &&
            !req.queue->controller()->find_namespace(req.cmd.nsid))
            return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
        req.execute = log_smart;
        return true;
    case NVME_LOG_LID_FW_SLOT:
        req.execute = log_firmware_slot;
        return true;
    case NVME_LOG_LID_CHANGED_NS:
        req.execute = log_changed_namespaces;
        return true;
    case NVME_LOG_LID_CMD_EFFECTS:
        req.execute = log_command_effects;
        return true;
    case NVME_LOG_LID_ANA:
        req.execute = log_ana;
        return true;
    case NVME_LOG_LID_RESERVATION:
        req.execute = log_reservation_notification;
        return true;
    default:
        return fail(req, NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE);
    }
}

} // namespace skiff::nvmeof::target::detail
