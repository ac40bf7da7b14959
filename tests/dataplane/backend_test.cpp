// The RAM and null backends.
#include "skiff/dataplane/null_device.hpp"
#include "skiff/dataplane/ram_device.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace skiff::dataplane {
namespace {

TEST(RamDevice, RejectsSizesThatAreNotWholePages) {
    for (uint64_t bad : {0ull, 1000ull, 4097ull}) {
        auto dev = RamDevice::create(bad);
        ASSERT_FALSE(dev.ok());
        EXPECT_EQ(dev.error().code, DOCA_ERROR_INVALID_VALUE);
        EXPECT_NE(dev.error().message.find(std::to_string(bad)), std::string::npos);
    }
}

TEST(RamDevice, AGibibyteIsCheapUntilTouchedAndStartsZeroed) {
    auto dev = RamDevice::create(1ull << 30);
    ASSERT_TRUE(dev.ok());
    std::vector<uint8_t> buf(4096, 0xAA);
    EXPECT_EQ((*dev)->read((1ull << 30) - 4096, buf.data(), buf.size()), 0);
    EXPECT_EQ(buf, std::vector<uint8_t>(4096, 0));
}

TEST(RamDevice, WriteReadCompareAndDeallocateWithPartialPages) {
    auto dev = RamDevice::create(64 * 1024);
    ASSERT_TRUE(dev.ok());
    std::vector<uint8_t> data(64 * 1024);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 1);
    ASSERT_EQ((*dev)->write(0, data.data(), data.size()), 0);
    bool equal = false;
    ASSERT_EQ((*dev)->compare(512, data.data() + 512, 1024, equal), 0);
    EXPECT_TRUE(equal);
    ASSERT_EQ((*dev)->compare(512, data.data() + 100, 1024, equal), 0);
    EXPECT_FALSE(equal);

    // Deallocate 1 KiB .. 13 KiB: a partial page, two whole pages, a partial page.
    ASSERT_EQ((*dev)->deallocate(1024, 12 * 1024), 0);
    std::fill(data.begin() + 1024, data.begin() + 13 * 1024, 0);
    std::vector<uint8_t> got(data.size());
    ASSERT_EQ((*dev)->read(0, got.data(), got.size()), 0);
    EXPECT_EQ(got, data);

    ASSERT_EQ((*dev)->write_zeroes(20 * 1024, 512), 0);
    std::fill(data.begin() + 20 * 1024, data.begin() + 20 * 1024 + 512, 0);
    ASSERT_EQ((*dev)->read(0, got.data(), got.size()), 0);
    EXPECT_EQ(got, data);
}

// Growth happens in place: the bytes stay where they were (a pointer a poll group holds, a
// read view being sent, stays valid) and the new range reads as zeroes.
TEST(RamDevice, GrowsInPlaceUpToFourTimesItsSizeAndNeverShrinks) {
    auto made = RamDevice::create(64 * 1024);
    ASSERT_TRUE(made.ok());
    RamDevice &dev = **made;
    std::vector<uint8_t> data(4096, 0x3C);
    ASSERT_EQ(dev.write(60 * 1024, data.data(), data.size()), 0);
    const uint8_t *view = dev.read_view(60 * 1024, 4096);

    ASSERT_TRUE(dev.grow(128 * 1024));
    EXPECT_EQ(dev.size_bytes(), 128u * 1024);
    EXPECT_EQ(dev.read_view(60 * 1024, 4096), view) << "the bytes moved";
    std::vector<uint8_t> got(4096);
    ASSERT_EQ(dev.read(60 * 1024, got.data(), got.size()), 0);
    EXPECT_EQ(got, data);
    ASSERT_EQ(dev.read(124 * 1024, got.data(), got.size()), 0);
    EXPECT_EQ(got, std::vector<uint8_t>(4096, 0));
    ASSERT_EQ(dev.write(124 * 1024, data.data(), data.size()), 0); // the new end is writable
    ASSERT_EQ(dev.read(124 * 1024, got.data(), got.size()), 0);
    EXPECT_EQ(got, data);

    ASSERT_TRUE(dev.grow(RamDevice::kGrowthFactor * 64 * 1024));
    auto past = dev.grow(RamDevice::kGrowthFactor * 64 * 1024 + 4096);
    ASSERT_FALSE(past);
    EXPECT_NE(past.error().message.find("times the size it started with"), std::string::npos)
        << past.error().message;
    for (uint64_t bad : {uint64_t(64 * 1024), uint64_t(300 * 1024 + 1)}) {
        auto st = dev.grow(bad);
        EXPECT_FALSE(st) << bad;
    }
    EXPECT_EQ(dev.size_bytes(), RamDevice::kGrowthFactor * 64 * 1024);
}

TEST(NullDevice, ReadsZeroesAndDropsWrites) {
    NullDevice dev(1 << 20);
    EXPECT_EQ(dev.size_bytes(), 1u << 20);
    std::vector<uint8_t> data(4096, 0x5A);
    EXPECT_EQ(dev.write(0, data.data(), data.size()), 0);
    std::vector<uint8_t> got(4096, 0xFF);
    EXPECT_EQ(dev.read(0, got.data(), got.size()), 0);
    EXPECT_EQ(got, std::vector<uint8_t>(4096, 0));
    bool equal = true;
    EXPECT_EQ(dev.compare(0, data.data(), data.size(), equal), 0);
    EXPECT_FALSE(equal);
}

} // namespace
} // namespace skiff::dataplane
