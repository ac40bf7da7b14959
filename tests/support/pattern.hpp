// Test data that differs at every byte and with the seed (xorshift32), so a misplaced or stale
// block shows. Shared by the tests and the helper programs that check data read back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace skiff::test {

inline std::vector<uint8_t> pattern(size_t bytes, uint32_t seed) {
    std::vector<uint8_t> v(bytes);
    uint32_t x = seed * 2654435761u + 1;
    for (auto &b : v) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = static_cast<uint8_t>(x);
    }
    return v;
}

} // namespace skiff::test
