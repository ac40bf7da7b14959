// What skiff-target exports at /metrics (dataplane/src/metrics/README.md lists every family):
// one scrape reads the counters the data path keeps (per queue, per poll group, per listener)
// and writes them in the Prometheus text format. Control plane only: it takes the target's
// and the subsystems' locks, never a poll group's time.
#pragma once

#include "skiff/nvmeof/target/target.hpp"

#include <string>

namespace skiff::dataplane {
class TargetService;
}

namespace skiff::dataplane::metrics {

// service may be null (no listener or poll group families then).
std::string render_target_metrics(const nvmeof::target::Target &target, const TargetService *service);

// The readable label of an NVMe status: "lba_out_of_range" for SCT 0h SC 80h (the spec's name in
// lower case, words joined by '_'), "other" for the statuses counted together (kOtherErrors).
std::string status_label(uint16_t error_key);

} // namespace skiff::dataplane::metrics
