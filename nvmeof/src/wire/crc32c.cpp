// CRC32C with the SSE4.2 crc32 instruction, or a byte table where the CPU lacks it.
#include "skiff/nvmeof/crc32c.hpp"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace skiff::nvmeof {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u; // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> make_table() {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
        t[i] = c;
    }
    return t;
}
constexpr auto kTable = make_table();

uint32_t update_table(uint32_t crc, const uint8_t *p, size_t len) {
    while (len--) crc = kTable[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t update_sse42(uint32_t crc, const uint8_t *p, size_t len) {
    uint64_t c = crc;
    while (len >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        len -= 8;
    }
    uint32_t c32 = static_cast<uint32_t>(c);
    while (len--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}

bool have_sse42() {
    static const bool yes = __builtin_cpu_supports("sse4.2");
    return yes;
}
#endif

} // namespace

uint32_t crc32c_update(uint32_t crc, const void *data, size_t len) {
    auto p = static_cast<const uint8_t *>(data);
#if defined(__x86_64__)
    if (have_sse42()) return update_sse42(crc, p, len);
#endif
    return update_table(crc, p, len);
}

} // namespace skiff::nvmeof
