// Internal: Identify data builders (also used by tests through the command path).
#pragma once

#include "skiff/nvmeof/target/controller.hpp"
#include "skiff/nvmeof/target/namespace.hpp"
#include "skiff/nvmeof/target/request.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target::detail {

void fill_identify_controller(const Controller &ctrl, nvme_id_ctrl &id);
void fill_identify_namespace(const Namespace &ns, nvme_id_ns &id);
bool parse_identify(Request &req);

} // namespace skiff::nvmeof::target::detail
