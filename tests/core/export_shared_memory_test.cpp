// PCI exports of shared memory (core/src/mem/README.md): the importer maps the exporter's pages, and
// revocation, exporter death and forged descriptors must behave exactly as on the /proc/<pid>/mem
// path. The exporter is a real process (tests/helpers/mem_exporter with a memfd region).
#include <doca_mmap.h>

#include "../../core/src/mem/export_blob.hpp"
#include "../../core/src/mem/mem_access.hpp"
#include "../../core/src/mem/import_probe.hpp"
#include "../../core/src/mem/shared_mapping.hpp"
#include "mem_exporter_process.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using skiff::test::exporter_pattern;
using Exporter = skiff::test::ExporterProcess;

// The memfd the exporter maps (tests/helpers/mem_exporter.cpp names it).
constexpr const char *region_name = "memfd:skiff-test-region";

// True when a mapping of this process is backed by the exporter's memfd.
bool maps_exporter_region() {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find(region_name) != std::string::npos) return true;
    return false;
}

class ExportSharedMemory : public ::testing::Test {
  protected:
    void SetUp() override {
        p0 = skiff::test::open_dpu_p0();
        ASSERT_NE(p0, nullptr);
    }
    void TearDown() override { EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS); }
    doca_error_t import(const std::vector<uint8_t> &desc, doca_mmap **m) {
        return doca_mmap_create_from_export(nullptr, desc.data(), desc.size(), p0, m);
    }
    // The descriptor with some fields changed (re-encoded: the blob stays well-formed).
    template <typename Edit>
    std::vector<uint8_t> forged(const Exporter &ex, Edit edit) {
        auto d = skiff::core::mem::decode_pci_export(ex.desc.data(), ex.desc.size());
        EXPECT_TRUE(d.ok());
        skiff::core::mem::PciExportDesc desc = d.value();
        edit(desc);
        std::vector<uint8_t> out(skiff::core::mem::pci_export_blob_size);
        skiff::core::mem::encode_pci_export(desc, out.data());
        return out;
    }
    doca_dev *p0 = nullptr;
};

} // namespace

TEST_F(ExportSharedMemory, RevocationFailsTheNextAccessAndUnmapsTheExportersPages) {
    Exporter ex(64 * 1024, "rw", "memfd");
    doca_mmap *m = nullptr;
    ASSERT_EQ(import(ex.desc, &m), DOCA_SUCCESS);
    ASSERT_EQ(skiff::core::mem::import_path(m), skiff::core::mem::ImportPath::shared_mapping);
    EXPECT_TRUE(maps_exporter_region());
    uint8_t byte = 0;
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr + 5, &byte, 1), DOCA_SUCCESS);
    EXPECT_EQ(byte, exporter_pattern(5));

    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    ASSERT_EQ(ex.command("FILL 90"), "FILLED"); // 0x5a everywhere, after the revocation
    std::vector<uint8_t> got(4096, 0xee);
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, got.data(), got.size()), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(got, std::vector<uint8_t>(4096, 0xee)); // nothing copied
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, got.data(), 16), DOCA_ERROR_NOT_CONNECTED);
    // The exporter's pages are gone from this process: the old addresses now hold private zero
    // pages, not the new pattern, and no mapping of the memfd is left.
    EXPECT_EQ(skiff::core::mem::import_path(m), skiff::core::mem::ImportPath::fenced);
    EXPECT_FALSE(maps_exporter_region());
    auto *old = static_cast<const uint8_t *>(skiff::core::mem::import_local_view(m, ex.addr));
    ASSERT_NE(old, nullptr);
    for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(old[i], 0) << i;
    EXPECT_EQ(ex.bytes(0, 16), std::vector<uint8_t>(16, 0x5a)); // the importer's write never landed
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportSharedMemory, CopiesRacingTheRevocationNeverReturnThePagesWrittenAfterIt) {
    Exporter ex(256 * 1024, "rw", "memfd");
    doca_mmap *m = nullptr;
    ASSERT_EQ(import(ex.desc, &m), DOCA_SUCCESS);
    std::atomic<long> reads{0};
    std::atomic<bool> saw_new_pattern{false};
    doca_error_t last = DOCA_SUCCESS;
    std::thread reader([&] {
        std::vector<uint8_t> got(64 * 1024);
        for (long i = 0; i < 100000000L; ++i) {
            size_t off = static_cast<size_t>(i % 4) * got.size();
            last = skiff::core::mmap_read(m, ex.addr + off, got.data(), got.size());
            if (last != DOCA_SUCCESS) return;
            for (size_t k = 0; k < got.size(); k += 512)
                if (got[k] != exporter_pattern(off + k)) saw_new_pattern = true;
            reads.fetch_add(1);
        }
    });
    while (reads.load() < 50) std::this_thread::yield();
    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    ASSERT_EQ(ex.command("FILL 90"), "FILLED");
    reader.join();
    EXPECT_EQ(last, DOCA_ERROR_NOT_CONNECTED);
    EXPECT_FALSE(saw_new_pattern.load()) << "a successful read returned bytes written after the revocation";
    EXPECT_FALSE(maps_exporter_region());
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportSharedMemory, ExporterKilledUnderLoadIsNotConnectedAndTheImportTearsDownCleanly) {
    Exporter ex(256 * 1024, "rw", "memfd");
    doca_mmap *m = nullptr;
    ASSERT_EQ(import(ex.desc, &m), DOCA_SUCCESS);
    std::atomic<long> copies{0};
    doca_error_t last = DOCA_SUCCESS;
    std::thread load([&] {
        std::vector<uint8_t> buf(16 * 1024, 0x11);
        for (long i = 0; i < 100000000L; ++i) {
            uint8_t *at = ex.addr + static_cast<size_t>(i % 16) * buf.size();
            last = i % 2 ? skiff::core::mmap_read(m, at, buf.data(), buf.size())
                         : skiff::core::mmap_write(m, at, buf.data(), buf.size());
            if (last != DOCA_SUCCESS) return;
            copies.fetch_add(1);
        }
    });
    while (copies.load() < 50) std::this_thread::yield();
    ex.kill_now(); // reaped when this returns
    load.join();
    EXPECT_EQ(last, DOCA_ERROR_NOT_CONNECTED);
    uint8_t byte = 0;
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_FALSE(maps_exporter_region());
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(ExportSharedMemory, ExportersThreadEndingIsNotItsDeath) {
    // The liveness word follows the thread that exported; the process outliving it must keep the
    // import working (confirmed through the pidfd). Exporter and importer are this process here.
    doca_dev *pf0 = skiff::test::open_host_pf0();
    ASSERT_NE(pf0, nullptr);
    size_t len = 64 * 1024;
    int fd = memfd_create("skiff-test-region", MFD_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, static_cast<off_t>(len)), 0);
    auto *region = static_cast<uint8_t *>(::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    ASSERT_NE(region, MAP_FAILED);
    region[100] = 42;
    doca_mmap *exp = nullptr;
    ASSERT_EQ(doca_mmap_create(&exp), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(exp, region, len), DOCA_SUCCESS);
    ASSERT_EQ(
        doca_mmap_set_permissions(exp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
        DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(exp, pf0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(exp), DOCA_SUCCESS);
    std::vector<uint8_t> desc;
    std::thread([&] {
        const void *d = nullptr;
        size_t n = 0;
        ASSERT_EQ(doca_mmap_export_pci(exp, pf0, &d, &n), DOCA_SUCCESS);
        desc.assign(static_cast<const uint8_t *>(d), static_cast<const uint8_t *>(d) + n);
    }).join();
    doca_mmap *m = nullptr;
    ASSERT_EQ(import(desc, &m), DOCA_SUCCESS);
    ASSERT_EQ(skiff::core::mem::import_path(m), skiff::core::mem::ImportPath::shared_mapping);
    uint8_t byte = 0;
    EXPECT_EQ(skiff::core::mmap_read(m, region + 100, &byte, 1), DOCA_SUCCESS);
    EXPECT_EQ(byte, 42);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(exp), DOCA_SUCCESS);
    EXPECT_EQ(doca_dev_close(pf0), DOCA_SUCCESS);
    munmap(region, len);
    close(fd);
}

TEST_F(ExportSharedMemory, ForgedOrMismatchedDescriptorsAreRefused) {
    Exporter ex(64 * 1024, "rw", "memfd");
    Exporter priv(64 * 1024, "rw", "private");
    doca_mmap *m = nullptr;
    // Wrong token: not the export the segment holds.
    EXPECT_EQ(import(forged(ex, [](auto &d) { d.token ^= 1; }), &m), DOCA_ERROR_NOT_CONNECTED);
    // Another fd of the exporter (its revocation segment) in place of the memory's file.
    EXPECT_EQ(import(forged(ex, [](auto &d) { d.backing_fd = d.segment_fd; }), &m), DOCA_ERROR_INVALID_VALUE);
    // A range outside the file.
    EXPECT_EQ(import(forged(ex, [](auto &d) { d.backing_offset += 1 << 20; }), &m), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(import(forged(ex, [](auto &d) { d.len *= 2; }), &m), DOCA_ERROR_INVALID_VALUE);
    // Private memory claimed to be shared.
    EXPECT_EQ(import(forged(priv, [](auto &d) { d.backing_fd = d.segment_fd; }), &m),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(import(forged(priv, [](auto &d) { d.liveness_fd = d.segment_fd; }), &m),
              DOCA_ERROR_INVALID_VALUE);

    // The mapping itself checks the file too (should a descriptor and its segment agree on a lie).
    auto d = skiff::core::mem::decode_pci_export(ex.desc.data(), ex.desc.size());
    ASSERT_TRUE(d.ok());
    skiff::core::mem::SharedFileRef wrong_file{d->segment_fd, d->backing_offset, d->backing_dev,
                                               d->backing_ino};
    auto r1 = skiff::core::mem::SharedMapping::map(d->exporter_pid, wrong_file, d->addr, d->len, true);
    ASSERT_FALSE(r1.ok());
    EXPECT_EQ(r1.error().code, DOCA_ERROR_INVALID_VALUE);
    skiff::core::mem::SharedFileRef past_end{d->backing_fd, d->backing_offset + 4096, d->backing_dev,
                                             d->backing_ino};
    auto r2 = skiff::core::mem::SharedMapping::map(d->exporter_pid, past_end, d->addr, d->len, true);
    ASSERT_FALSE(r2.ok());
    EXPECT_EQ(r2.error().code, DOCA_ERROR_INVALID_VALUE);

    // The genuine descriptors still import.
    ASSERT_EQ(import(ex.desc, &m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    ASSERT_EQ(import(priv.desc, &m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}
