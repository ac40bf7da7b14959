// Loading a skiff JSON configuration. Validation is complete: every problem is reported, each
// as "<json path>: <what is wrong and what is expected>", and nothing is returned unless the
// whole file is valid (an invalid file never half-applies).
#pragma once

#include "skiff/config/config.hpp"

// nlohmann::json declared only: the files that build or read documents include <nlohmann/json.hpp>.
#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace skiff::config {

struct LoadResult {
    std::optional<Config> config; // set only when errors is empty
    std::vector<std::string> errors;
    std::vector<std::string> warnings; // things accepted but ignored (nvmetcli import)

    bool ok() const { return config.has_value(); }
    // The errors, one per line.
    std::string error_text() const;
};

LoadResult parse_config(const nlohmann::json &doc);
LoadResult parse_config_text(const std::string &text);
LoadResult load_config_file(const std::string &path);

// A few lines for people: what the configuration serves (skiff-target --check-config).
std::string summarize(const Config &config);
// The limits line of summarize(), without its "limits: " label or newline.
std::string describe_limits(const TransportSettings &t);

} // namespace skiff::config
