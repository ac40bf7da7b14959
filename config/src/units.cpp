#include "skiff/config/units.hpp"

#include <cctype>
#include <cstdio>

namespace skiff::config {
namespace {

struct Unit {
    const char *name;
    int shift;
};
constexpr Unit kUnits[] = {{"", 0},   {"B", 0},    {"K", 10}, {"KiB", 10}, {"M", 20}, {"MiB", 20},
                           {"G", 30}, {"GiB", 30}, {"T", 40}, {"TiB", 40}, {"P", 50}, {"PiB", 50}};

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

std::optional<uint64_t> parse_size(const std::string &text) {
    size_t pos = 0;
    uint64_t n = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
        uint64_t digit = static_cast<uint64_t>(text[pos] - '0');
        if (n > (UINT64_MAX - digit) / 10) return std::nullopt;
        n = n * 10 + digit;
        ++pos;
    }
    if (pos == 0) return std::nullopt;
    std::string unit = text.substr(pos);
    for (const Unit &u : kUnits) {
        if (unit != u.name) continue;
        if (u.shift && n > (UINT64_MAX >> u.shift)) return std::nullopt;
        return n << u.shift;
    }
    return std::nullopt;
}

std::string format_size(uint64_t bytes) {
    static constexpr Unit kNamed[] = {{"PiB", 50}, {"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}};
    if (bytes == 0) return "0";
    for (const Unit &u : kNamed)
        if (bytes % (uint64_t(1) << u.shift) == 0) return std::to_string(bytes >> u.shift) + u.name;
    return std::to_string(bytes);
}

std::optional<Id16> parse_id16(const std::string &text) {
    Id16 id{};
    size_t digits = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '-') {
            // Dashes only where the 8-4-4-4-12 form puts them.
            if (text.size() != 36 || (i != 8 && i != 13 && i != 18 && i != 23)) return std::nullopt;
            continue;
        }
        int v = hex_value(c);
        if (v < 0 || digits >= 32) return std::nullopt;
        id[digits / 2] = static_cast<uint8_t>(id[digits / 2] | (digits % 2 ? v : v << 4));
        ++digits;
    }
    if (digits != 32) return std::nullopt;
    return id;
}

std::string format_id16(const Id16 &id) {
    char out[37];
    std::snprintf(out, sizeof(out), "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11],
                  id[12], id[13], id[14], id[15]);
    return out;
}

std::optional<Id8> parse_id8(const std::string &text) {
    if (text.size() != 16) return std::nullopt;
    Id8 id{};
    for (size_t i = 0; i < 16; ++i) {
        int v = hex_value(text[i]);
        if (v < 0) return std::nullopt;
        id[i / 2] = static_cast<uint8_t>(id[i / 2] | (i % 2 ? v : v << 4));
    }
    return id;
}

std::string format_id8(const Id8 &id) {
    char out[17];
    std::snprintf(out, sizeof(out), "%02x%02x%02x%02x%02x%02x%02x%02x", id[0], id[1], id[2], id[3], id[4],
                  id[5], id[6], id[7]);
    return out;
}

} // namespace skiff::config
