// Internal: Asymmetric Namespace Access reporting. Namespaces name their ANA group (1 unless
// configured); each group's state is per port (PortAna, set by the configuration and skiff-ctl
// ana set), so a controller reports the state of the port it is connected through. A namespace
// whose device cannot be reached (a hostmem namespace whose host agent is gone) makes its group
// inaccessible on every port. Hosts learn of changes through the ANA change notice and read log
// page 0Ch; I/O on an inaccessible / persistent-loss / changing path fails with the matching ANA
// status (SCT 3h), never with DNR, so a multipath host retries it on another path.
#pragma once

#include "skiff/nvmeof/target/request.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target {
class Controller;
class Namespace;
} // namespace skiff::nvmeof::target

namespace skiff::nvmeof::target::detail {

// ANA fields of Identify Controller: CMIC bit 3, OAES bit 11, ANATT, ANACAP, ANAGRPMAX,
// NANAGRPID.
void fill_identify_controller_ana(nvme_id_ctrl &id);
// The ANA change count a controller reports: every transition of its port's groups plus those
// of the namespaces' devices.
uint64_t ana_change_count(const Controller &ctrl);
// The path status of I/O to `ns` through this controller: 0 while the path is accessible.
uint16_t ana_io_status(const Controller &ctrl, const Namespace &ns);
// Get Log Page 0Ch.
void log_ana(Request &req);

} // namespace skiff::nvmeof::target::detail
