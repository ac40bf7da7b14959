// The hosts[] section as the target consumes it: each entry's secrets parsed into the
// nvmeof::target::HostAuth that Connect looks up by (host NQN, subsystem NQN).
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/nvmeof/target/target.hpp"

namespace skiff::config {

// Every entry of config.hosts (already validated: the secrets and names parse).
nvmeof::target::Target::HostAuthMap host_auth_map(const Config &config);

} // namespace skiff::config
