#include "skiff/config/backend_settings.hpp"

#include <nlohmann/json.hpp>

namespace skiff::config {

BackendSettings::BackendSettings() noexcept = default;

BackendSettings::BackendSettings(nlohmann::json fields)
    : fields_(std::make_unique<nlohmann::json>(std::move(fields))) {}

BackendSettings::BackendSettings(const BackendSettings &other)
    : fields_(other.fields_ ? std::make_unique<nlohmann::json>(*other.fields_) : nullptr) {}

BackendSettings::BackendSettings(BackendSettings &&other) noexcept = default;

BackendSettings &BackendSettings::operator=(const BackendSettings &other) {
    if (this != &other) fields_ = other.fields_ ? std::make_unique<nlohmann::json>(*other.fields_) : nullptr;
    return *this;
}

BackendSettings &BackendSettings::operator=(BackendSettings &&other) noexcept = default;

BackendSettings::~BackendSettings() = default;

const nlohmann::json &BackendSettings::json() const {
    static const nlohmann::json empty = nlohmann::json::object();
    return fields_ ? *fields_ : empty;
}

nlohmann::json &BackendSettings::json() {
    if (!fields_) fields_ = std::make_unique<nlohmann::json>(nlohmann::json::object());
    return *fields_;
}

std::string BackendSettings::text(const std::string &key, const std::string &fallback) const {
    return json().value(key, fallback);
}

void BackendSettings::set_text(const std::string &key, const std::string &value) {
    json()[key] = value;
}

void BackendSettings::set_flag(const std::string &key, bool value) {
    json()[key] = value;
}

void BackendSettings::set_number(const std::string &key, uint64_t value) {
    json()[key] = value;
}

bool BackendSettings::operator==(const BackendSettings &other) const {
    return json() == other.json();
}

} // namespace skiff::config
