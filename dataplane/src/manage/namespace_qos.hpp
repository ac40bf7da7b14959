// From the configuration's QoS (namespaces[].qos) to a live namespace's QoS policy, and back to
// JSON for `skiff-ctl qos show`.
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/target.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace skiff::dataplane {

nvmeof::target::QosLimits qos_limits(const config::QosLimitsConfig &c);
// Gives ns the limits of `qos` (queued I/O follows the new limits within 50 ms). An empty
// string, or why not (more hosts than a namespace keeps budgets for).
std::string apply_namespace_qos(nvmeof::target::Namespace &ns, const config::QosConfig &qos);

// qos.show: each namespace's limits (as configured) and what QoS held back (with metrics or
// accounting on): {"namespaces": [{"subsystem", "nsid", "limits", "hosts", "throttled_ios",
// "throttled_seconds"}]}. `subsystem` empty: every subsystem.
nlohmann::json qos_show_json(const nvmeof::target::Target &target, const config::Config &running,
                             const std::string &subsystem);

} // namespace skiff::dataplane
