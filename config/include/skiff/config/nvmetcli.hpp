// Import of the Linux kernel target's saved configuration (`nvmetcli save` writes
// /etc/nvmet/config.json). Ports become listeners with their subsystem lists, subsystems keep
// their attributes and host lists, and each enabled namespace's device path becomes an aio
// backend (regular file or block device); ports' ANA group states become the listeners' `ana`
// entries. Fields skiff does not use (referrals, pi_enable) are accepted and listed as warnings.
#pragma once

#include "skiff/config/load.hpp"

namespace skiff::config {

LoadResult import_nvmetcli(const nlohmann::json &doc);
LoadResult import_nvmetcli_file(const std::string &path);

} // namespace skiff::config
