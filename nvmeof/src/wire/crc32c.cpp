// CRC32C through ISA-L's crc32_iscsi, which picks the CPU's CRC instructions at run time
// (SSE4.2 crc32 + PCLMULQDQ folding on x86_64, the Armv8 CRC32C instructions + PMULL on aarch64)
// and falls back to tables of its own elsewhere.
#include "skiff/nvmeof/crc32c.hpp"

#include <isa-l/crc.h>

namespace skiff::nvmeof {

// crc32_iscsi(buf, len, crc) is the plain reflected Castagnoli update: it takes the running
// register as it is and returns it without the final inversion (tests/nvmeof/crc32c_test.cpp
// checks this against the RFC 3720 vectors), exactly crc32c_update's contract. Its length is an
// int, so longer buffers go in slices.
uint32_t crc32c_update(uint32_t crc, const void *data, size_t len) {
    // ISA-L only reads the buffer; its prototype predates const.
    auto p = static_cast<unsigned char *>(const_cast<void *>(data));
    constexpr size_t kMaxSlice = size_t{1} << 30;
    while (len > 0) {
        const size_t n = len < kMaxSlice ? len : kMaxSlice;
        crc = crc32_iscsi(p, static_cast<int>(n), crc);
        p += n;
        len -= n;
    }
    return crc;
}

} // namespace skiff::nvmeof
