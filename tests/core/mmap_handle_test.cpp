// The C++ handles (skiff/core/device.hpp, mmap.hpp, buf.hpp): errors as values, release on scope exit.
#include <skiff/core/buf.hpp>
#include <skiff/core/device.hpp>
#include <skiff/core/mmap.hpp>

#include <doca_mmap.h>

#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using skiff::core::BufInventory;
using skiff::core::BufPool;
using skiff::core::DevCap;
using skiff::core::Device;
using skiff::core::Mmap;
using skiff::test::ScopedEnv;

TEST(MmapHandle, DeviceOpensByCapabilityPciAndInterface) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    auto p0 = Device::open_with_cap(DevCap::mmap_from_export_pci);
    ASSERT_TRUE(p0.ok()) << p0.error().describe();
    EXPECT_EQ(p0->pci_addr(), "0000:03:00.0");
    EXPECT_EQ(p0->iface_name(), "p0");
    auto p1 = Device::open_by_pci("03:00.1");
    ASSERT_TRUE(p1.ok());
    EXPECT_EQ(p1->iface_name(), "p1");
    auto again = Device::open_by_iface("p1");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->get(), p1->get()); // the same opened device
}

TEST(MmapHandle, MissingDeviceIsNotFoundWithAMessage) {
    ScopedEnv side("SKIFF_SIDE", "host");
    auto none = Device::open_by_pci("99:00.0");
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.error().code, DOCA_ERROR_NOT_FOUND);
    EXPECT_NE(none.error().message.find("99:00.0"), std::string::npos);
    auto no_cap = Device::open_with_cap(DevCap::mmap_from_export_pci);
    ASSERT_FALSE(no_cap.ok());
    EXPECT_EQ(no_cap.error().code, DOCA_ERROR_NOT_FOUND);
}

TEST(MmapHandle, LocalMmapInventoryAndBufsReleaseInScopeOrder) {
    ScopedEnv side("SKIFF_SIDE", "dpu");
    std::vector<uint8_t> memory(16384, 0);
    auto dev = Device::open_by_iface("p0");
    ASSERT_TRUE(dev.ok());
    auto mmap =
        Mmap::create_local(memory.data(), memory.size(), {dev->get()}, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    ASSERT_TRUE(mmap.ok()) << mmap.error().describe();
    auto inv = BufInventory::create(4);
    ASSERT_TRUE(inv.ok());
    {
        auto buf = inv->get_by_data(mmap->get(), memory.data() + 100, 50);
        ASSERT_TRUE(buf.ok());
        EXPECT_EQ(buf->data(), memory.data() + 100);
        EXPECT_EQ(buf->data_len(), 50u);
        EXPECT_EQ(mmap->num_bufs(), 1u);
        // While the buf lives, the mmap refuses to go and says why.
        auto refused = mmap->destroy();
        ASSERT_FALSE(refused.ok());
        EXPECT_EQ(refused.error().code, DOCA_ERROR_NOT_PERMITTED);
        EXPECT_EQ(inv->num_free(), 3u);
    }
    EXPECT_EQ(mmap->num_bufs(), 0u);
    EXPECT_EQ(inv->num_free(), 4u);
    const char text[] = "written by the engine path";
    ASSERT_TRUE(mmap->write(memory.data() + 1000, text, sizeof(text)).ok());
    EXPECT_STREQ(reinterpret_cast<const char *>(memory.data() + 1000), text);
    auto outside = mmap->read(memory.data() + memory.size() - 1, memory.data(), 2);
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.error().code, DOCA_ERROR_INVALID_VALUE);
}

TEST(MmapHandle, ExportAndImportThroughHandles) {
    std::vector<uint8_t> memory(8192);
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<uint8_t>(i);
    Device pf0, p0;
    {
        ScopedEnv side("SKIFF_SIDE", "host");
        auto d = Device::open_with_cap(DevCap::mmap_export_pci);
        ASSERT_TRUE(d.ok());
        pf0 = std::move(d.value());
    }
    {
        ScopedEnv side("SKIFF_SIDE", "dpu");
        auto d = Device::open_by_iface("p0");
        ASSERT_TRUE(d.ok());
        p0 = std::move(d.value());
    }
    auto exported = Mmap::create_local(memory.data(), memory.size(), {pf0.get()},
                                       DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_ONLY);
    ASSERT_TRUE(exported.ok());
    auto desc = exported->export_pci(pf0.get());
    ASSERT_TRUE(desc.ok()) << desc.error().describe();
    auto imported = Mmap::import(desc.value(), p0.get());
    ASSERT_TRUE(imported.ok()) << imported.error().describe();
    uint8_t got[16];
    ASSERT_TRUE(imported->read(memory.data() + 300, got, sizeof(got)).ok());
    EXPECT_EQ(std::memcmp(got, memory.data() + 300, sizeof(got)), 0);
    auto denied = imported->write(memory.data(), got, 1);
    ASSERT_FALSE(denied.ok());
    EXPECT_EQ(denied.error().code, DOCA_ERROR_NOT_PERMITTED);
    // Importer first, exporter last.
    EXPECT_TRUE(imported->destroy().ok());
    EXPECT_TRUE(exported->destroy().ok());
}

TEST(MmapHandle, PoolHandsOutFixedBufsAndReportsEmpty) {
    std::vector<uint8_t> memory(4096);
    auto mmap = Mmap::create_local(memory.data(), memory.size(), {}, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    ASSERT_TRUE(mmap.ok());
    auto pool = BufPool::create(mmap->get(), 2, 1024, 64);
    ASSERT_TRUE(pool.ok()) << pool.error().describe();
    auto a = pool->alloc();
    auto b = pool->alloc();
    ASSERT_TRUE(a.ok() && b.ok());
    auto c = pool->alloc();
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().code, DOCA_ERROR_EMPTY);
    EXPECT_EQ(a->len(), 1024u);
    a->reset();
    EXPECT_EQ(pool->num_free(), 1u);
    auto too_big = BufPool::create(mmap->get(), 5, 1024);
    ASSERT_FALSE(too_big.ok());
    EXPECT_EQ(too_big.error().code, DOCA_ERROR_INITIALIZATION);
}
