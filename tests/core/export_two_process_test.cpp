// PCI export between two processes (spec 5.3 rules 15-17): a host-side exporter process
// (tests/helpers/mem_exporter) and this DPU-side importer, which moves bytes only through
// mmap_read / mmap_write (the path of the DMA engine).
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "../../core/src/mem/mem_access.hpp"
#include "../../core/src/mem/import_probe.hpp"
#include "mem_exporter_process.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

using Exporter = skiff::test::ExporterProcess;

uint8_t pattern(size_t i) {
    return skiff::test::exporter_pattern(i);
}

// Each test runs with the exporter's region in private memory (/proc/<pid>/mem path) and in
// shared memory (a memfd, a MAP_SHARED file: the importer maps the pages).
class ExportTwoProcess : public ::testing::TestWithParam<const char *> {
  protected:
    void SetUp() override {
        p0 = skiff::test::open_dpu_p0();
        ASSERT_NE(p0, nullptr);
    }
    void TearDown() override { EXPECT_EQ(doca_dev_close(p0), DOCA_SUCCESS); }
    doca_mmap *import(const Exporter &ex) {
        doca_mmap *m = nullptr;
        EXPECT_EQ(doca_mmap_create_from_export(nullptr, ex.desc.data(), ex.desc.size(), p0, &m),
                  DOCA_SUCCESS);
        // The path taken is the one the exporter's memory allows: only a memfd (or hugetlbfs) is
        // mapped; a regular file mapped shared is reached like private memory.
        if (m != nullptr) {
            auto expected = std::string(GetParam()) == "memfd" ? skiff::core::mem::ImportPath::shared_mapping
                                                               : skiff::core::mem::ImportPath::proc_mem;
            EXPECT_EQ(skiff::core::mem::import_path(m), expected);
        }
        return m;
    }
    doca_dev *p0 = nullptr;
};

} // namespace

TEST_P(ExportTwoProcess, Rule16_ImporterReadsAndWritesTheExportersPages) {
    Exporter ex(1 << 20, "rw", GetParam());
    ASSERT_EQ(ex.desc.size() > 0, true);
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    uint8_t from_export = 0;
    ASSERT_EQ(doca_mmap_get_from_export(m, &from_export), DOCA_SUCCESS);
    EXPECT_EQ(from_export, 1);
    EXPECT_EQ(skiff::core::mmap_cpu_ptr(m, ex.addr, 16), nullptr); // not CPU-reachable here
    EXPECT_TRUE(skiff::core::mmap_is_imported(m));

    std::vector<uint8_t> got(4096);
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr + 1000, got.data(), got.size()), DOCA_SUCCESS);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], pattern(1000 + i)) << "offset " << 1000 + i;

    std::vector<uint8_t> put(64);
    for (size_t i = 0; i < put.size(); ++i) put[i] = static_cast<uint8_t>(0xa0 + i);
    ASSERT_EQ(skiff::core::mmap_write(m, ex.addr + 2000, put.data(), put.size()), DOCA_SUCCESS);
    EXPECT_EQ(ex.bytes(2000, 64), put);             // verified inside the exporter
    EXPECT_EQ(ex.bytes(1999, 1)[0], pattern(1999)); // neighbours untouched
    EXPECT_EQ(ex.bytes(2064, 1)[0], pattern(2064));

    // Outside the exported range.
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr + ex.len - 8, got.data(), 16), DOCA_ERROR_INVALID_VALUE);

    // Bufs describe the peer memory like any other.
    doca_buf_inventory *inv = nullptr;
    ASSERT_EQ(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
    ASSERT_EQ(doca_buf_inventory_start(inv), DOCA_SUCCESS);
    doca_buf *b = nullptr;
    ASSERT_EQ(doca_buf_inventory_buf_get_by_data(inv, m, ex.addr, 512, &b), DOCA_SUCCESS);
    EXPECT_EQ(skiff::core::buf_mmap(b), m);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_buf_dec_refcount(b, nullptr), DOCA_SUCCESS);
    EXPECT_EQ(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_P(ExportTwoProcess, Rule17_ExporterStopRevokesTheImport) {
    Exporter ex(64 * 1024, "rw", GetParam());
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    uint8_t byte = 0;
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_SUCCESS);
    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    // The descriptor is dead too: importing it again fails the same way.
    doca_mmap *again = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, ex.desc.data(), ex.desc.size(), p0, &again),
              DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(ex.command("DESTROY"), "DESTROYED");
    EXPECT_EQ(ex.exit_normally(), 0);
}

TEST_P(ExportTwoProcess, Rule17_ExporterDestroyWithoutStopRevokesTheImport) {
    Exporter ex(64 * 1024, "rw", GetParam());
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    ASSERT_EQ(ex.command("DESTROY"), "DESTROYED");
    uint8_t byte = 0;
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, &byte, 1), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_P(ExportTwoProcess, Rule17_ExporterDeathIsNotConnected) {
    Exporter ex(64 * 1024, "rw", GetParam());
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    std::vector<uint8_t> got(256);
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr, got.data(), got.size()), DOCA_SUCCESS);
    ex.kill_now();
    EXPECT_EQ(skiff::core::mmap_read(m, ex.addr, got.data(), got.size()), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr, got.data(), got.size()), DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_P(ExportTwoProcess, Rule17_ImporterFirstTeardownOrderWorks) {
    Exporter ex(64 * 1024, "rw", GetParam());
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
    EXPECT_EQ(ex.command("STOP"), "STOPPED");
    EXPECT_EQ(ex.command("DESTROY"), "DESTROYED");
    EXPECT_EQ(ex.exit_normally(), 0);
}

TEST_P(ExportTwoProcess, ReadOnlyPciExportRefusesWrites) {
    Exporter ex(64 * 1024, "ro", GetParam());
    doca_mmap *m = import(ex);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(skiff::core::mmap_engine_writable(m));
    uint8_t byte = 0x55;
    EXPECT_EQ(skiff::core::mmap_write(m, ex.addr + 10, &byte, 1), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(ex.bytes(10, 1)[0], pattern(10));
    ASSERT_EQ(skiff::core::mmap_read(m, ex.addr + 10, &byte, 1), DOCA_SUCCESS);
    EXPECT_EQ(byte, pattern(10));
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Memory, ExportTwoProcess, ::testing::Values("private", "memfd", "file"));
