// Internal: the sizes Copy and Verify accept, in one place so that Identify advertises exactly
// what copy_cmd.cpp and verify_cmd.cpp enforce.
//
// Both commands move data inside the target through the request slot's own buffer (Limits::
// max_transfer bytes, preallocated by the transport), one chunk at a time, so their size is not
// bounded by that buffer; these limits bound how long one command may keep the backend busy.
// On the synchronous backends (RAM, null) a command runs to its end inside one poll-group
// iteration, so a Copy of kMaxCopyBytes is two memcpys of that size while the group's other
// connections wait.
#pragma once

#include <algorithm>
#include <cstdint>

namespace skiff::nvmeof::target::detail {

// Source Range entries of one Copy: 128 descriptors of 32 bytes are 4 KiB, which fit in the
// smallest max_transfer (8 KiB) with a page left over to stage the data in (Identify
// Namespace MSRC is this, 0's based).
constexpr uint32_t kMaxCopyRanges = 128;
// Data one Copy moves, all ranges together (Identify Namespace MCL, in the namespace's blocks).
constexpr uint64_t kMaxCopyBytes = 8ull << 20;
// Data one Verify reads (Identify Controller, NVM command set: VSL). 32 MiB is the largest
// Verify a host can send on a 512-byte-block namespace (NLB is 16 bits), so only namespaces of
// larger blocks ever see the limit. A RAM namespace verifies without copying (a read view).
constexpr uint64_t kMaxVerifyBytes = 32ull << 20;
// VSL: log2(kMaxVerifyBytes / CAP.MPSMIN (4 KiB)).
constexpr uint8_t kVerifySizeLimitField = 13;
static_assert((4096ull << kVerifySizeLimitField) == kMaxVerifyBytes);

// MCL and MSSRL for a namespace of 2^block_shift-byte blocks. MSSRL is a 16-bit count; a
// single range may be as long as the whole copy where that fits.
inline uint32_t max_copy_blocks(uint8_t block_shift) {
    return static_cast<uint32_t>(kMaxCopyBytes >> block_shift);
}
inline uint16_t max_copy_range_blocks(uint8_t block_shift) {
    return static_cast<uint16_t>(std::min<uint32_t>(max_copy_blocks(block_shift), 0xFFFF));
}

} // namespace skiff::nvmeof::target::detail
