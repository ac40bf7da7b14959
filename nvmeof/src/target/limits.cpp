#include "skiff/nvmeof/target/limits.hpp"

#include <algorithm>
#include <bit>

namespace skiff::nvmeof::target {

uint8_t mdts_field(const Limits &limits) {
    return static_cast<uint8_t>(std::bit_width(limits.max_transfer / 4096u) - 1);
}

uint32_t in_capsule_limit(const Limits &limits) {
    return std::min(limits.in_capsule_data, limits.max_transfer);
}

} // namespace skiff::nvmeof::target
