// Writing a configuration back as skiff JSON (what `skiff-ctl save` stores). The output loads
// again with load_config_file() to an equal Config.
#pragma once

#include "skiff/config/config.hpp"

#include <nlohmann/json.hpp>

namespace skiff::config {

nlohmann::json to_json(const Config &config);

} // namespace skiff::config
