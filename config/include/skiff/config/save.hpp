// Writing a configuration back as skiff JSON (what `skiff-ctl save` stores). The output loads
// again with load_config_file() to an equal Config.
#pragma once

#include "skiff/config/config.hpp"

#include <nlohmann/json.hpp>

namespace skiff::config {

// The whole configuration, DH-HMAC-CHAP secrets and TLS PSKs included (a saved file is written
// 0600).
nlohmann::json to_json(const Config &config);

// What a person is shown (skiff-ctl list, logs): the same document with every host's
// dhchap_key / dhchap_ctrl_key / tls_psk replaced by kRedacted, so one sees that a key is set, not the key.
constexpr const char *kRedacted = "(set, not shown)";
nlohmann::json redact_secrets(nlohmann::json config);

} // namespace skiff::config
