// Internal: the discovery log page (70h).
#pragma once

#include "skiff/nvmeof/target/request.hpp"

namespace skiff::nvmeof::target::detail {

void execute_discovery_log(Request &req);

} // namespace skiff::nvmeof::target::detail
