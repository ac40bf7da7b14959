// CRC32C (Castagnoli), the NVMe/TCP header and data digest, computed by ISA-L with the CPU's
// CRC instructions (x86_64 and aarch64).
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof {

// Continues a CRC over more bytes: start with crc32c_init(), finish with crc32c_final().
uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);
constexpr uint32_t crc32c_init() {
    return 0xFFFFFFFFu;
}
constexpr uint32_t crc32c_final(uint32_t crc) {
    return crc ^ 0xFFFFFFFFu;
}

// The digest of one buffer, as sent on the wire.
inline uint32_t crc32c(const void *data, size_t len) {
    return crc32c_final(crc32c_update(crc32c_init(), data, len));
}

} // namespace skiff::nvmeof
