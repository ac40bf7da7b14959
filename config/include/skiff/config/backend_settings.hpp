// The kind-specific fields of a backend (BackendConfig::settings): a JSON object whose fields
// the kind's validator has already checked (config/src/backend_kinds.cpp).
//
// Why a class and not a plain nlohmann::json member: config.hpp is included by most of the
// control plane and its tests, and a by-value nlohmann::json member would make every one of them
// parse <nlohmann/json.hpp> (about 3 s a file per build flavour). Held behind a pointer, the
// document needs only <nlohmann/json_fwd.hpp> here; the files that read or write the fields
// include <nlohmann/json.hpp> themselves.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace skiff::config {

class BackendSettings {
  public:
    // An empty object.
    BackendSettings() noexcept;
    explicit BackendSettings(nlohmann::json fields);
    // A copy is a deep copy: two configurations never share their settings.
    BackendSettings(const BackendSettings &other);
    BackendSettings(BackendSettings &&other) noexcept;
    BackendSettings &operator=(const BackendSettings &other);
    BackendSettings &operator=(BackendSettings &&other) noexcept;
    ~BackendSettings();

    // The fields, an empty object when none were set.
    const nlohmann::json &json() const;
    nlohmann::json &json();

    // Flat fields without <nlohmann/json.hpp>, for code that has no other use for it (skiff-target's
    // command line). Separate names, not overloads of one set(): a string literal would convert
    // to bool before std::string.
    // The string field `key`, or `fallback` when there is none.
    std::string text(const std::string &key, const std::string &fallback) const;
    void set_text(const std::string &key, const std::string &value);
    void set_flag(const std::string &key, bool value);
    void set_number(const std::string &key, uint64_t value);

    // Equal when the JSON values are equal (an empty object equals no fields set).
    bool operator==(const BackendSettings &other) const;

  private:
    // Null stands for an empty object, so that a default BackendSettings allocates nothing and a
    // moved-from one is still a valid, empty object.
    std::unique_ptr<nlohmann::json> fields_;
};

} // namespace skiff::config
