#include "ana.hpp"

#include "commands.hpp"
#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <cstring>
#include <span>

namespace skiff::nvmeof::target {

const char *ana_state_name(AnaState s) {
    switch (s) {
    case AnaState::kOptimized:
        return "optimized";
    case AnaState::kNonOptimized:
        return "non-optimized";
    case AnaState::kInaccessible:
        return "inaccessible";
    case AnaState::kPersistentLoss:
        return "persistent-loss";
    case AnaState::kChange:
        return "change";
    }
    return "?";
}

std::optional<AnaState> parse_ana_state(std::string_view name) {
    for (AnaState s : {AnaState::kOptimized, AnaState::kNonOptimized, AnaState::kInaccessible,
                       AnaState::kPersistentLoss, AnaState::kChange})
        if (name == ana_state_name(s)) return s;
    return std::nullopt;
}

bool PortAna::set(uint32_t group, AnaState s) {
    if (group == 0 || group > kMaxAnaGroups || state(group) == s) return false;
    states_[group - 1].store(uint8_t(s), std::memory_order_relaxed);
    // The counts after the state: whoever sees a new count reads the new state.
    group_changes_[group - 1].fetch_add(1, std::memory_order_acq_rel);
    changes_.fetch_add(1, std::memory_order_acq_rel);
    return true;
}

} // namespace skiff::nvmeof::target

namespace skiff::nvmeof::target::detail {
namespace {

// How long a host waits for a group in the change state (Identify Controller ANATT, seconds);
// a transition started with skiff-ctl ana set --transition-ms ends well within it.
constexpr uint8_t kAnaTransitionSeconds = 10;

// The group's state on the controller's port, made inaccessible when one of its namespaces'
// devices cannot be reached (a device never makes a path better than its port says).
AnaState group_state(const Controller &ctrl, uint32_t group, bool device_down) {
    AnaState s = ctrl.ana().state(group);
    return device_down && ana_state_accessible(s) ? AnaState::kInaccessible : s;
}

} // namespace

void fill_identify_controller_ana(nvme_id_ctrl &id) {
    // Several ports (listeners) and controllers reach one subsystem, with ANA reporting.
    id.cmic |= NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL | NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
    id.oaes |= NVME_CTRL_OAES_ANA;
    id.anatt = kAnaTransitionSeconds;
    id.anacap = NVME_CTRL_ANACAP_OPT | NVME_CTRL_ANACAP_NON_OPT | NVME_CTRL_ANACAP_INACCESSIBLE |
                NVME_CTRL_ANACAP_PERSISTENT_LOSS | NVME_CTRL_ANACAP_CHANGE | NVME_CTRL_ANACAP_GRPID_NO_CHG;
    id.anagrpmax = kMaxAnaGroups;
    id.nanagrpid = kMaxAnaGroups;
}

uint64_t ana_change_count(const Controller &ctrl) {
    uint64_t sum = ctrl.ana().changes();
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid)
        if (const Namespace *ns = ctrl.find_namespace(nsid)) sum += ns->device().ana_changes();
    return sum;
}

uint16_t ana_io_status(const Controller &ctrl, const Namespace &ns) {
    switch (ctrl.ana().state(ns.ana_group())) {
    case AnaState::kOptimized:
    case AnaState::kNonOptimized:
        return 0;
    case AnaState::kPersistentLoss:
        return wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_PERSISTENT_LOSS, false);
    case AnaState::kChange:
        return wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_TRANSITION, false);
    case AnaState::kInaccessible:
        break;
    }
    return wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE, false);
}

// One descriptor per group that has namespaces, in group order, each listing its nsids (none
// with RGO, LSP bit 0).
void log_ana(Request &req) {
    const wire::Sqe &c = req.cmd;
    uint64_t offset = c.cdw12 | (static_cast<uint64_t>(c.cdw13) << 32);
    uint32_t len = (((c.cdw11 & 0xFFFF) << 16 | (c.cdw10 >> 16)) + 1) * 4;
    bool groups_only = (c.cdw10 >> 8) & NVME_LOG_ANA_LSP_RGO_GROUPS_ONLY;
    bool retain = c.cdw10 & (1u << 15);
    Controller &ctrl = *req.queue->controller();
    PageWindow w(req.buf, offset, len);

    // The namespaces this host sees, by group (namespaces may come and go meanwhile: one
    // snapshot, the present ones only, so each group's pass is short).
    std::array<const Namespace *, kMaxNamespaces> nss;
    size_t present = 0;
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid)
        if (const Namespace *ns = ctrl.find_namespace(nsid)) nss[present++] = ns;
    const std::span<const Namespace *const> listed(nss.data(), present);

    nvme_ana_log header{};
    header.chgcnt = ana_change_count(ctrl);
    uint64_t at = sizeof(header);
    for (uint32_t group = 1; group <= kMaxAnaGroups; ++group) {
        uint32_t members = 0;
        uint64_t device_changes = 0;
        bool device_down = false;
        for (const Namespace *ns : listed) {
            if (ns->ana_group() != group) continue;
            ++members;
            device_changes += ns->device().ana_changes();
            device_down |= !ns->device().accessible();
        }
        if (!members) continue;
        nvme_ana_group_desc d{};
        d.grpid = group;
        d.nnsids = groups_only ? 0 : members;
        d.chgcnt = ctrl.ana().group_changes(group) + device_changes;
        d.state = uint8_t(group_state(ctrl, group, device_down));
        w.put(at, &d, sizeof(d));
        at += sizeof(d);
        for (const Namespace *ns : listed) {
            if (groups_only || ns->ana_group() != group) continue;
            uint32_t nsid = ns->nsid();
            w.put(at, &nsid, sizeof(nsid));
            at += sizeof(nsid);
        }
        ++header.ngrps;
    }
    w.put(0, &header, sizeof(header));
    if (!retain) ctrl.ana_log_read(header.chgcnt);
    complete(req);
}

} // namespace skiff::nvmeof::target::detail

namespace skiff::nvmeof::target {

bool Controller::collect_ana_changes() {
    uint64_t now = detail::ana_change_count(*this);
    if (now != ana_changes_seen_) {
        ana_changes_seen_ = now;
        ana_changes_pending_ = true;
    }
    constexpr uint32_t kAecAnaChange = 1u << 11;
    if (!ana_changes_pending_ || ana_event_masked_ || !(async_event_config & kAecAnaChange)) return false;
    ana_changes_pending_ = false;
    return true;
}

} // namespace skiff::nvmeof::target
