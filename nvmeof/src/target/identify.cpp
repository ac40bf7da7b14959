// Identify (CNS 00h, 01h, 02h, 03h, 05h, 06h, 1Ch) for I/O and discovery controllers.
#include "identify.hpp"
#include "ana.hpp"

#include "commands.hpp"
#include "copy_limits.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <algorithm>
#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint32_t kIdentifyLen = 4096;

// Space padded, not NUL terminated (Identify string fields).
void put_string(char *dst, size_t n, const std::string &s) {
    std::memset(dst, ' ', n);
    std::memcpy(dst, s.data(), std::min(n, s.size()));
}

void identify_namespace(Request &req) {
    Namespace *ns = req.queue->controller()->find_namespace(req.cmd.nsid);
    // An inactive (but valid) nsid reads as zeroes; so does one hidden from this host.
    if (ns) fill_identify_namespace(*ns, *reinterpret_cast<nvme_id_ns *>(req.buf));
    complete(req);
}

void identify_controller(Request &req) {
    auto &id = *reinterpret_cast<nvme_id_ctrl *>(req.buf);
    fill_identify_controller(*req.queue->controller(), id);
    // Keyed SGL data blocks exist on RDMA only (as nvmet's NVMF_KEYED_SGLS).
    if (req.queue->port().trtype == "rdma") id.sgls |= 1u << 2;
    complete(req);
}

void identify_active_list(Request &req) {
    auto *list = reinterpret_cast<uint32_t *>(req.buf);
    size_t n = 0;
    const Controller &ctrl = *req.queue->controller();
    // The ids above CDW1's (parse_identify refused FFFFFFFEh and FFFFFFFFh); 1024 fill the page.
    for (uint32_t nsid = req.cmd.nsid + 1; nsid <= kMaxNamespaces && n < 1024; ++nsid)
        if (ctrl.find_namespace(nsid)) list[n++] = nsid;
    complete(req);
}

void identify_descriptors(Request &req) {
    Namespace *ns = req.queue->controller()->find_namespace(req.cmd.nsid);
    if (!ns) return (void)(req.fail(NVME_SCT_GENERIC, NVME_SC_INVALID_NS), complete(req));
    uint8_t *p = req.buf;
    auto put = [&](uint8_t type, const void *id, uint8_t len) {
        p[0] = type;
        p[1] = len;
        std::memcpy(p + 4, id, len);
        p += 4 + len;
    };
    const NamespaceIds &ids = ns->ids();
    static constexpr std::array<uint8_t, 8> kNoEui{};
    if (ids.eui64 != kNoEui) put(NVME_NIDT_EUI64, ids.eui64.data(), NVME_NIDT_EUI64_LEN);
    put(NVME_NIDT_NGUID, ids.nguid.data(), NVME_NIDT_NGUID_LEN);
    put(NVME_NIDT_UUID, ids.uuid.data(), NVME_NIDT_UUID_LEN);
    uint8_t csi = NVME_CSI_NVM;
    put(NVME_NIDT_CSI, &csi, NVME_NIDT_CSI_LEN);
    complete(req);
}

// CNS 05h with CSI NVM: nothing beyond the defaults to report, all zeroes.
void identify_zeroes(Request &req) {
    complete(req);
}

// CNS 06h with CSI NVM: the NVM command set's controller limits; only Verify has one (the
// others are 0: no limit beyond MDTS and the commands' own fields).
void identify_ctrl_nvm(Request &req) {
    reinterpret_cast<nvme_id_ctrl_nvm *>(req.buf)->vsl = kVerifySizeLimitField;
    complete(req);
}

void identify_command_sets(Request &req) {
    req.buf[0] = 1u << NVME_CSI_NVM; // vector 0: the NVM command set only
    complete(req);
}

// ONCS is controller wide: Dataset Management is advertised when some namespace can deallocate
// (on the others it is a successful no-op, as Deallocate is advisory).
bool any_namespace_deallocates(const Controller &ctrl) {
    bool none = true;
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
        const Namespace *ns = ctrl.find_namespace(nsid);
        if (!ns) continue;
        none = false;
        if (ns->device().deallocate_mode() != DeallocateMode::kUnsupported) return true;
    }
    return none;
}

// VWC is controller wide too: present when some namespace's storage can lose completed
// writes (hosts then send Flush and FUA); an empty subsystem says present, as a namespace
// added later may cache.
bool any_namespace_caches(const Controller &ctrl) {
    bool none = true;
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
        const Namespace *ns = ctrl.find_namespace(nsid);
        if (!ns) continue;
        none = false;
        if (ns->device().volatile_write_cache()) return true;
    }
    return none;
}

} // namespace

void fill_identify_controller(const Controller &ctrl, nvme_id_ctrl &id) {
    std::memset(&id, 0, sizeof(id));
    const Subsystem &subsys = ctrl.subsystem();
    const Limits &limits = ctrl.limits();
    put_string(id.sn, sizeof(id.sn), subsys.identity().serial);
    put_string(id.mn, sizeof(id.mn), subsys.identity().model);
    put_string(id.fr, sizeof(id.fr), subsys.identity().firmware);
    id.rab = 6;
    id.cmic = NVME_CTRL_CMIC_MULTI_CTRL;
    id.mdts = mdts_field(limits);
    id.cntlid = ctrl.cntlid();
    id.ver = ctrl.vs();
    // Traffic Based Keep Alive: every command received on any of the association's queues
    // restarts the Keep Alive timer (Queue::prepare), so a busy host needs no Keep Alive.
    id.ctratt = NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS;
    id.cntrltype = ctrl.is_discovery() ? NVME_CTRL_CNTRLTYPE_DISCOVERY : NVME_CTRL_CNTRLTYPE_IO;
    id.acl = 3;
    id.aerl = static_cast<uint8_t>(limits.aer_limit - 1);
    id.lpa = NVME_CTRL_LPA_CMD_EFFECTS | NVME_CTRL_LPA_EXTENDED;
    id.kas = 10; // keep-alive granularity: 10 x 100 ms
    id.sqes = (6 << 4) | 6;
    id.cqes = (4 << 4) | 4;
    id.maxcmd = limits.max_queue_depth;
    id.sgls = (1u << 0) | (1u << 20); // SGLs without alignment; SGL offsets (in-capsule data)
    std::strncpy(id.subnqn, subsys.nqn().c_str(), sizeof(id.subnqn) - 1);
    id.ioccsz = (64 + in_capsule_limit(limits)) / 16;
    id.iorcsz = 1;
    id.msdbd = 1;
    id.ofcs = 1; // Disconnect supported
    if (ctrl.is_discovery()) {
        id.maxcmd = limits.max_admin_queue_depth;
        id.oaes = NVME_CTRL_OAES_DL; // Discovery Log Page Change notices (persistent discovery)
        return;
    }
    id.oaes = NVME_CTRL_OAES_NA;
    id.frmw = (1 << 1) | 1; // one slot, slot 1 read only
    id.nn = kMaxNamespaces;
    id.mnan = kMaxNamespaces;
    // Copy and Verify go through the backend's reads and writes, so every namespace has them.
    id.oncs = NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_WRITE_ZEROES | NVME_CTRL_ONCS_RESERVATIONS |
              NVME_CTRL_ONCS_VERIFY | NVME_CTRL_ONCS_COPY;
    if (any_namespace_deallocates(ctrl)) id.oncs |= NVME_CTRL_ONCS_DSM;
    id.fuses = NVME_CTRL_FUSES_COMPARE_AND_WRITE;
    if (any_namespace_caches(ctrl)) id.vwc = NVME_CTRL_VWC_PRESENT;
    id.acwu = 0; // compare and write is atomic up to one block (0's based)
    id.ocfs = 1; // Copy: Source Range Entries descriptor format 0h only
    fill_identify_controller_ana(id);
}

void fill_identify_namespace(const Namespace &ns, nvme_id_ns &id) {
    std::memset(&id, 0, sizeof(id));
    id.nsze = id.ncap = id.nuse = ns.num_blocks();
    id.nlbaf = 0;
    id.flbas = 0;
    id.nmic = NVME_NS_NMIC_SHARED;
    // Every reservation type, IEKEY on Register as in NVMe 1.3 and later, and Persist Through
    // Power Loss where the namespace has a file to persist to.
    id.rescap = NVME_NS_RESCAP_WE | NVME_NS_RESCAP_EA | NVME_NS_RESCAP_WERO | NVME_NS_RESCAP_EARO |
                NVME_NS_RESCAP_WEAR | NVME_NS_RESCAP_EAAR | NVME_NS_RESCAP_IEK_13;
    if (ns.reservation().ptpl_supported()) id.rescap |= NVME_NS_RESCAP_PTPL;
    // Deallocated blocks read as zeroes, and Write Zeroes may deallocate, only where the device
    // promises zeroes (a punched file hole); else "not reported".
    if (ns.device().deallocate_mode() == DeallocateMode::kReadsZeroes) id.dlfeat = 0x09;
    std::memcpy(id.nguid, ns.ids().nguid.data(), sizeof(id.nguid));
    std::memcpy(id.eui64, ns.ids().eui64.data(), sizeof(id.eui64));
    id.lbaf[0].ds = ns.block_shift();
    id.anagrpid = ns.ana_group();
    // Copy's limits, in this namespace's blocks (copy_limits.hpp); MSRC is 0's based.
    id.mssrl = max_copy_range_blocks(ns.block_shift());
    id.mcl = max_copy_blocks(ns.block_shift());
    id.msrc = static_cast<uint8_t>(kMaxCopyRanges - 1);
}

bool parse_identify(Request &req) {
    if (!expect_transfer(req, kIdentifyLen, DataDir::kCtrlToHost)) return false;
    std::memset(req.buf, 0, kIdentifyLen);
    uint8_t cns = req.cmd.cdw10 & 0xFF;
    uint8_t csi = req.cmd.cdw11 >> 24;
    uint32_t nsid = req.cmd.nsid;
    bool discovery = req.queue->controller()->is_discovery();
    if (discovery && cns != NVME_IDENTIFY_CNS_CTRL) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    auto valid_nsid = [&] { return nsid >= 1 && nsid <= kMaxNamespaces; };
    switch (cns) {
    case NVME_IDENTIFY_CNS_NS:
        if (!valid_nsid()) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
        req.execute = identify_namespace;
        return true;
    case NVME_IDENTIFY_CNS_CTRL:
        req.execute = identify_controller;
        return true;
    case NVME_IDENTIFY_CNS_NS_ACTIVE_LIST:
        if (nsid >= 0xFFFFFFFE) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
        req.execute = identify_active_list;
        return true;
    case NVME_IDENTIFY_CNS_NS_DESC_LIST:
        if (!valid_nsid()) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
        req.execute = identify_descriptors;
        return true;
    case NVME_IDENTIFY_CNS_CSI_NS:
        if (csi != NVME_CSI_NVM) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
        if (!valid_nsid()) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_NS);
        req.execute = identify_zeroes;
        return true;
    case NVME_IDENTIFY_CNS_CSI_CTRL:
        if (csi != NVME_CSI_NVM) return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
        req.execute = identify_ctrl_nvm;
        return true;
    case NVME_IDENTIFY_CNS_COMMAND_SET_STRUCTURE:
        req.execute = identify_command_sets;
        return true;
    default:
        return fail(req, NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD);
    }
}

} // namespace skiff::nvmeof::target::detail
