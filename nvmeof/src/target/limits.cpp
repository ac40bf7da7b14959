#include "skiff/nvmeof/target/limits.hpp"

#include <bit>

namespace skiff::nvmeof::target {

uint8_t mdts_field(const Limits &limits) {
    return static_cast<uint8_t>(std::bit_width(limits.max_transfer / 4096u) - 1);
}

} // namespace skiff::nvmeof::target
