// The masks doca_sync_event_wait_gt accepts: 0 (the whole counter) or a naturally aligned run of
// 1, 2, 4 or 8 bytes of 0xFF.
#pragma once

#include <cstdint>

namespace skiff::core {

constexpr bool is_valid_wait_mask(uint64_t mask) {
    if (mask == 0 || mask == UINT64_MAX) return true;
    for (unsigned bytes : {1u, 2u, 4u}) {
        const uint64_t run = (uint64_t{1} << (8 * bytes)) - 1;
        for (unsigned shift = 0; shift < 64; shift += 8 * bytes)
            if (mask == run << shift) return true;
    }
    return false;
}

// What a wait compares: (value & mask) > threshold (wait_gt) or == threshold (wait_eq).
enum class WaitOp { gt, eq };

// The comparison, with mask 0 meaning "no mask".
constexpr bool wait_satisfied(uint64_t value, uint64_t threshold, uint64_t mask, WaitOp op = WaitOp::gt) {
    uint64_t v = mask == 0 ? value : (value & mask);
    return op == WaitOp::gt ? v > threshold : v == threshold;
}

} // namespace skiff::core
