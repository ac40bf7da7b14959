// --verify's block stamps: what a correct block looks like and each way a wrong one is caught.
#include "verify.hpp"
#include "worker.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace skiff::perf;

TEST(perf_verify, StampedBlocksCheckOut) {
    BlockStamp s(512, 99);
    std::vector<uint8_t> buf(4096);
    s.stamp(buf.data(), 800, 8, 3);
    std::string why;
    EXPECT_TRUE(s.check(buf.data(), 800, 8, 3, why)) << why;
    EXPECT_TRUE(s.check(buf.data(), 800, 8, 0, why))
        << "unknown expectation: any valid stamp passes; " << why;
}

TEST(perf_verify, EachKindOfWrongBlockIsCaught) {
    BlockStamp s(512, 99);
    std::vector<uint8_t> buf(4096);
    std::string why;
    s.stamp(buf.data(), 800, 8, 3);
    EXPECT_FALSE(s.check(buf.data(), 808, 8, 3, why));
    EXPECT_NE(why.find("written for LBA 800"), std::string::npos) << why;
    EXPECT_FALSE(s.check(buf.data(), 800, 8, 4, why));
    EXPECT_NE(why.find("stale"), std::string::npos) << why;
    buf[512 * 5 + 100] ^= 1;
    EXPECT_FALSE(s.check(buf.data(), 800, 8, 3, why));
    EXPECT_NE(why.find("LBA 805"), std::string::npos) << why;
    std::vector<uint8_t> zero(4096);
    EXPECT_TRUE(s.check(zero.data(), 0, 8, 0, why)) << "never written: zeroes pass";
    EXPECT_FALSE(s.check(zero.data(), 0, 8, 1, why)) << "written: zeroes are lost data";
    EXPECT_NE(why.find("no stamp"), std::string::npos) << why;
}

TEST(perf_verify, SlicesCoverEveryUnitOnce) {
    auto slices = split_units(1000, 3);
    ASSERT_EQ(slices.size(), 3u);
    uint64_t next = 0;
    for (auto &s : slices) {
        EXPECT_EQ(s.first_unit, next);
        EXPECT_GT(s.units, 0u);
        next += s.units;
    }
    EXPECT_EQ(next, 1000u);
}
