// Transport limits drawn from a fuzz input, so a harness reaches every configuration a target
// may run with, not only FuzzTarget's defaults: issue 36 (in-capsule data larger than the
// request buffer) hid in a combination the fixed limits never made.
//
// Layout (kBytes = 6 bytes, taken from the front of the input):
//   [in-capsule data: 2 bytes, little-endian, x 16; 0xFFFF means 1 MiB][MDTS: 1 byte]
//   [I/O queue depth: 1 byte][admin queue depth: 1 byte][zero-copy read minimum: 1 byte]
// in_capsule_data   0 .. 1 MiB in steps of 16 (the configuration loader's range: larger than
//                   max_transfer is possible, as it was before the loader refused it)
// max_transfer      8 KiB << (byte % 8): 8 KiB .. 1 MiB (the loader's max_io_size starts at 8 KiB:
//                   Identify's MDTS cannot say 4 KiB, its 0 means "no limit")
// max_queue_depth   2 + byte % 127: 2 .. 128
// max_admin_queue_depth  2 + byte % 63: 2 .. 64
// tcp_zero_copy_read_min  byte % 3: 0 (always copy), 4 KiB, 32 KiB (the default)
// Each field is XORed with FuzzTarget's defaults first (kDefaults), so bytes of zero (the empty
// input libFuzzer always runs first, or a short input) mean the default limits.
// All other limits keep FuzzTarget's values (max_io_queues 4).
#pragma once

#include "fuzz_input.hpp"
#include "fuzz_target.hpp"

#include <cstdint>

namespace skiff::fuzz {

constexpr size_t kLimitsBytes = 6;

// FuzzTarget's limits as encoded here: in-capsule 8192 (512 x 16), MDTS 16 KiB (8 KiB << 1),
// depths 16 and 8, zero-copy reads from 32 KiB.
constexpr uint16_t kDefaultIcd = 512;
constexpr uint8_t kDefaults[] = {1, 14, 6, 2};

inline tgt::Limits draw_limits(Input &in) {
    tgt::Limits l = FuzzTarget::limits();
    uint16_t icd = in.u16() ^ kDefaultIcd;
    l.in_capsule_data = icd == 0xFFFF ? 1u << 20 : uint32_t(icd) * 16;
    l.max_transfer = 8192u << ((in.u8() ^ kDefaults[0]) % 8);
    l.max_queue_depth = static_cast<uint16_t>(2 + (in.u8() ^ kDefaults[1]) % 127);
    l.max_admin_queue_depth = static_cast<uint16_t>(2 + (in.u8() ^ kDefaults[2]) % 63);
    static constexpr uint32_t kZeroCopy[] = {0, 4096, 32 * 1024};
    l.tcp_zero_copy_read_min = kZeroCopy[(in.u8() ^ kDefaults[3]) % 3];
    return l;
}

} // namespace skiff::fuzz
