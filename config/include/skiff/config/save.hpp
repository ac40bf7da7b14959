// Writing a configuration back as skiff JSON (what `skiff-ctl save` stores). The output loads
// again with load_config_file() to an equal Config.
#pragma once

#include "skiff/config/config.hpp"

#include <nlohmann/json.hpp>

namespace skiff::config {

// with_secrets false: TLS PSKs show as "(set)" (listings); true: the keys (what `save` writes).
nlohmann::json to_json(const Config &config, bool with_secrets = true);

} // namespace skiff::config
