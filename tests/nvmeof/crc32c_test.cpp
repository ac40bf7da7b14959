// CRC32C against the check values of the Castagnoli polynomial.
#include "skiff/nvmeof/crc32c.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using skiff::nvmeof::crc32c;

TEST(Crc32c, KnownCheckValues) {
    EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);
    std::vector<uint8_t> zeros(32, 0);
    EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
    std::vector<uint8_t> ones(32, 0xFF);
    EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32c, IncrementalEqualsOneShot) {
    std::string text(1000, 'x');
    for (size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(i * 7);
    uint32_t c = skiff::nvmeof::crc32c_init();
    c = skiff::nvmeof::crc32c_update(c, text.data(), 333);
    c = skiff::nvmeof::crc32c_update(c, text.data() + 333, text.size() - 333);
    EXPECT_EQ(skiff::nvmeof::crc32c_final(c), crc32c(text.data(), text.size()));
}
