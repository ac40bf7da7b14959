// Internal: Asymmetric Namespace Access reporting. Each namespace is its own ANA group (group id
// = nsid); its state comes from its device: optimized while BlockDevice::accessible(), else
// inaccessible (a hostmem namespace whose host agent is gone). Hosts learn of changes through
// the ANA change notice and read log page 0Ch; I/O to an inaccessible namespace fails with
// SCT 3h / SC 02h (Asymmetric Access Inaccessible, retryable), which the device returns.
#pragma once

#include "skiff/nvmeof/target/request.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target {
class Subsystem;
}

namespace skiff::nvmeof::target::detail {

// ANA fields of Identify Controller: CMIC bit 3, OAES bit 11, ANATT, ANACAP, ANAGRPMAX,
// NANAGRPID.
void fill_identify_controller_ana(nvme_id_ctrl &id);
// The namespace's ANA group (Identify Namespace ANAGRPID).
inline uint32_t ana_group_of(uint32_t nsid) {
    return nsid;
}
// Sum of every namespace's ANA transitions: the log page's change count, and how controllers
// notice that something changed.
uint64_t ana_change_count(const Subsystem &subsys);
// Get Log Page 0Ch.
void log_ana(Request &req);

} // namespace skiff::nvmeof::target::detail
