#include "ana.hpp"

#include "commands.hpp"
#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/subsystem.hpp"

#include <cstring>

namespace skiff::nvmeof::target::detail {
namespace {

constexpr uint8_t kAnaTransitionSeconds = 10; // how long a host waits in the change state

uint8_t ana_state(const Namespace &ns) {
    return ns.device().accessible() ? NVME_ANA_STATE_OPTIMIZED : NVME_ANA_STATE_INACCESSIBLE;
}

} // namespace

void fill_identify_controller_ana(nvme_id_ctrl &id) {
    id.cmic |= NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
    id.oaes |= NVME_CTRL_OAES_ANA;
    id.anatt = kAnaTransitionSeconds;
    id.anacap = NVME_CTRL_ANACAP_OPT | NVME_CTRL_ANACAP_INACCESSIBLE | NVME_CTRL_ANACAP_GRPID_NO_CHG;
    id.anagrpmax = kMaxNamespaces;
    id.nanagrpid = kMaxNamespaces;
}

uint64_t ana_change_count(const Subsystem &subsys) {
    uint64_t sum = 0;
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid)
        if (const Namespace *ns = subsys.find_namespace(nsid)) sum += ns->device().ana_changes();
    return sum;
}

// One descriptor per namespace (its own group), in nsid order; with RGO (LSP bit 0) the
// descriptors list no namespaces.
void log_ana(Request &req) {
    const wire::Sqe &c = req.cmd;
    uint64_t offset = c.cdw12 | (static_cast<uint64_t>(c.cdw13) << 32);
    uint32_t len = (((c.cdw11 & 0xFFFF) << 16 | (c.cdw10 >> 16)) + 1) * 4;
    bool groups_only = (c.cdw10 >> 8) & NVME_LOG_ANA_LSP_RGO_GROUPS_ONLY;
    bool retain = c.cdw10 & (1u << 15);
    Controller &ctrl = *req.queue->controller();
    const Subsystem &subsys = ctrl.subsystem();
    PageWindow w(req.buf, offset, len);

    nvme_ana_log header{};
    header.chgcnt = ana_change_count(subsys);
    uint64_t at = sizeof(header);
    for (uint32_t nsid = 1; nsid <= kMaxNamespaces; ++nsid) {
        const Namespace *ns = subsys.find_namespace(nsid);
        if (!ns) continue;
        nvme_ana_group_desc d{};
        d.grpid = ana_group_of(nsid);
        d.nnsids = groups_only ? 0 : 1;
        d.chgcnt = ns->device().ana_changes();
        d.state = ana_state(*ns);
        w.put(at, &d, sizeof(d));
        at += sizeof(d);
        if (!groups_only) {
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
    uint64_t now = detail::ana_change_count(*subsystem_);
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
