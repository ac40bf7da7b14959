// CRC32C (ISA-L's crc32_iscsi behind crc32c_update) against the published check values, the
// RFC 3720 (iSCSI) test vectors and a bit-at-a-time reference on random data.
#include "skiff/nvmeof/crc32c.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using skiff::nvmeof::crc32c;
using skiff::nvmeof::crc32c_final;
using skiff::nvmeof::crc32c_init;
using skiff::nvmeof::crc32c_update;

namespace {

// The definition itself: reflected Castagnoli polynomial, register preset to all ones and
// inverted at the end, one bit at a time. Slow and obviously right.
uint32_t reference_crc32c(const uint8_t *p, size_t len) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; ++i) {
        crc ^= p[i];
        for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

// RFC 3720 gives the digest as the bytes sent on the wire, least significant byte first.
uint32_t from_wire(uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
    return uint32_t{b0} | uint32_t{b1} << 8 | uint32_t{b2} << 16 | uint32_t{b3} << 24;
}

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint8_t> v(n);
    for (auto &b : v) b = static_cast<uint8_t>(rng());
    return v;
}

} // namespace

TEST(Crc32c, KnownCheckValues) {
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
    EXPECT_EQ(crc32c("", 0), 0u);
}

// RFC 3720, appendix B.4.
TEST(Crc32c, Rfc3720Vectors) {
    std::vector<uint8_t> v(32, 0);
    EXPECT_EQ(crc32c(v.data(), v.size()), from_wire(0xaa, 0x36, 0x91, 0x8a));
    std::fill(v.begin(), v.end(), 0xff);
    EXPECT_EQ(crc32c(v.data(), v.size()), from_wire(0x43, 0xab, 0xa8, 0x62));
    for (size_t i = 0; i < 32; ++i) v[i] = static_cast<uint8_t>(i);
    EXPECT_EQ(crc32c(v.data(), v.size()), from_wire(0x4e, 0x79, 0xdd, 0x46));
    for (size_t i = 0; i < 32; ++i) v[i] = static_cast<uint8_t>(31 - i);
    EXPECT_EQ(crc32c(v.data(), v.size()), from_wire(0x5c, 0xdb, 0x3f, 0x11));
    // An iSCSI SCSI Read command PDU (48 bytes).
    const uint8_t read_pdu[48] = {0x01, 0xc0, 0, 0, 0, 0, 0,    0, 0,    0, 0, 0,    0, 0, 0, 0,
                                  0x14, 0,    0, 0, 0, 0, 0x04, 0, 0,    0, 0, 0x14, 0, 0, 0, 0x18,
                                  0x28, 0,    0, 0, 0, 0, 0,    0, 0x02, 0, 0, 0,    0, 0, 0, 0};
    EXPECT_EQ(crc32c(read_pdu, sizeof read_pdu), from_wire(0x56, 0x3a, 0x96, 0xd9));
}

// Every length up to a few cache lines and the sizes the data path digests, at every alignment
// of the start: the accelerated code has separate paths for heads, tails and large blocks.
TEST(Crc32c, EqualsBitwiseReferenceOnRandomData) {
    const auto data = random_bytes(128 * 1024 + 64, 3720);
    for (size_t offset = 0; offset < 16; ++offset) {
        for (size_t len = 0; len <= 600; ++len) {
            ASSERT_EQ(crc32c(data.data() + offset, len), reference_crc32c(data.data() + offset, len))
                << "offset " << offset << " length " << len;
        }
    }
    for (size_t len : {size_t{4096}, size_t{8192} + 3, size_t{65536}, size_t{128 * 1024}}) {
        for (size_t offset : {size_t{0}, size_t{1}, size_t{7}, size_t{64}}) {
            EXPECT_EQ(crc32c(data.data() + offset, len), reference_crc32c(data.data() + offset, len))
                << "offset " << offset << " length " << len;
        }
    }
}

// The data digest of a multi-PDU transfer is built from pieces (C2H data arrives in chunks).
TEST(Crc32c, IncrementalEqualsOneShot) {
    const auto data = random_bytes(10000, 42);
    const uint32_t whole = crc32c(data.data(), data.size());
    for (size_t cut : {size_t{0}, size_t{1}, size_t{333}, size_t{4096}, size_t{9999}, data.size()}) {
        uint32_t c = crc32c_init();
        c = crc32c_update(c, data.data(), cut);
        c = crc32c_update(c, data.data() + cut, data.size() - cut);
        EXPECT_EQ(crc32c_final(c), whole) << "cut at " << cut;
    }
}
