#include "dev/pci_addr.hpp"

#include <cctype>

namespace skiff::core::dev {

namespace {

bool all_hex(std::string_view s) {
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return !s.empty();
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::optional<std::string> normalize_pci_addr(std::string_view text) {
    // Bus:Device.Function is the tail of both forms; the domain is optional.
    std::string_view domain = "0000";
    if (text.size() == 12) {
        if (text[4] != ':') return std::nullopt;
        domain = text.substr(0, 4);
        text.remove_prefix(5);
    }
    if (text.size() != 7 || text[2] != ':' || text[5] != '.') return std::nullopt;
    std::string_view bus = text.substr(0, 2), device = text.substr(3, 2), function = text.substr(6, 1);
    if (!all_hex(domain) || !all_hex(bus) || !all_hex(device) || !all_hex(function)) return std::nullopt;
    if (function[0] > '7') return std::nullopt; // a PCI function number is 0..7
    return lower(domain) + ":" + lower(bus) + ":" + lower(device) + "." + lower(function);
}

} // namespace skiff::core::dev
