// Writing a configuration back as skiff JSON (what `skiff-ctl save` stores). The output loads
// again with load_config_file() to an equal Config.
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/core/status.hpp"

// nlohmann::json declared only: the files that build or read documents include <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

namespace skiff::config {

// The whole configuration, DH-HMAC-CHAP secrets and TLS PSKs included (a saved file is written
// 0600).
nlohmann::json to_json(const Config &config);

// A namespace's "qos" object as to_json writes it (only the limits that are set).
nlohmann::json qos_to_json(const QosConfig &qos);

// Writes to_json(config) to path as a file of secrets must be written, whoever else can write in
// its folder and whatever the umask: a new temporary file next to it ("<path>.tmp.XXXXXX",
// created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, so a file or symbolic link someone put there
// first is never opened), written through that descriptor, flushed, then renamed over path (a
// symbolic link at path is replaced, not followed). The file belongs to this process's user.
// On any error path is unchanged, the temporary file removed, and the message names the step.
Status save_config_file(const Config &config, const std::string &path);

// What a person is shown (skiff-ctl list, logs): the same document with every host's
// dhchap_key / dhchap_ctrl_key / tls_psk replaced by kRedacted, so one sees that a key is set, not the key.
constexpr const char *kRedacted = "(set, not shown)";
nlohmann::json redact_secrets(nlohmann::json config);

} // namespace skiff::config
