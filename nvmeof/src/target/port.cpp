#include "skiff/nvmeof/target/port.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

bool Port::lists(const std::string &nqn) const {
    if (!subsystems) return true;
    return std::find(subsystems->begin(), subsystems->end(), nqn) != subsystems->end();
}

const char *to_string(SecureChannel sc) {
    switch (sc) {
    case SecureChannel::kNone:
        return "none";
    case SecureChannel::kOptional:
        return "optional";
    case SecureChannel::kRequired:
        return "required";
    }
    return "?";
}

std::optional<SecureChannel> parse_secure_channel(const std::string &text) {
    if (text == "none") return SecureChannel::kNone;
    if (text == "optional") return SecureChannel::kOptional;
    if (text == "required") return SecureChannel::kRequired;
    return std::nullopt;
}

} // namespace skiff::nvmeof::target
