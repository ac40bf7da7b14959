#include "skiff/dataplane/null_device.hpp"

#include <cstring>

namespace skiff::dataplane {

uint16_t NullDevice::read(uint64_t, void *dst, size_t len) {
    std::memset(dst, 0, len);
    return 0;
}

uint16_t NullDevice::compare(uint64_t, const void *expected, size_t len, bool &equal) {
    const auto *p = static_cast<const uint8_t *>(expected);
    equal = true;
    for (size_t i = 0; i < len && equal; ++i) equal = p[i] == 0;
    return 0;
}

} // namespace skiff::dataplane
