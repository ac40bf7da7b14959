// Sizes on command lines: "512MiB", "1GiB", "4096", "64KiB" (K/M/G/T alone also accepted).
#pragma once

#include <cstdint>
#include <string>

namespace skiff::dataplane {

// Bytes, or 0 when the text is malformed.
inline uint64_t parse_size(const std::string &text) {
    size_t pos = 0;
    uint64_t n = 0;
    try {
        n = std::stoull(text, &pos);
    } catch (...) {
        return 0;
    }
    std::string unit = text.substr(pos);
    if (unit.empty() || unit == "B") return n;
    if (unit == "KiB" || unit == "K") return n << 10;
    if (unit == "MiB" || unit == "M") return n << 20;
    if (unit == "GiB" || unit == "G") return n << 30;
    if (unit == "TiB" || unit == "T") return n << 40;
    return 0;
}

} // namespace skiff::dataplane
