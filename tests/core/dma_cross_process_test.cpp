// Spec 5.6 item 43: the DMA engine reaches memory that another process exported over PCI. The
// exporter is a separate process (tests/helpers/mem_exporter, pattern byte i = i * 7 + 3); the
// bytes the engine wrote are checked inside the exporter, over its command pipe.
#include "dma_support.hpp"
#include "mem_exporter_process.hpp"

#include <doca_buf_inventory.h>
#include <doca_dma.h>
#include <doca_mmap.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <atomic>
#include <string>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

using skiff::test::DmaFixture;

namespace {

using skiff::test::exporter_pattern;
using skiff::test::ExporterProcess;

// Each test runs with the exporters' regions in private memory and in a memfd (shared mapping).
class DmaCrossProcess : public DmaFixture, public ::testing::WithParamInterface<const char *> {
  protected:
    doca_mmap *import(const ExporterProcess &ex) {
        doca_mmap *m = nullptr;
        EXPECT_EQ(doca_mmap_create_from_export(nullptr, ex.desc.data(), ex.desc.size(), dev, &m),
                  DOCA_SUCCESS);
        return m;
    }
    doca_buf *remote_buf(doca_mmap *m, uint8_t *addr, size_t len, size_t data_len) {
        doca_buf *b = nullptr;
        EXPECT_EQ(doca_buf_inventory_buf_get_by_args(inv, m, addr, len, addr, data_len, &b), DOCA_SUCCESS);
        bufs.push_back(b);
        return b;
    }
    void drop_bufs() {
        for (doca_buf *b : bufs) doca_buf_dec_refcount(b, nullptr);
        bufs.clear();
    }
};

} // namespace

TEST_P(DmaCrossProcess, CopiesIntoTheExportersMemoryAndBackOut) {
    ExporterProcess ex(1 << 20, "rw", GetParam());
    ASSERT_FALSE(ex.desc.empty());
    doca_mmap *remote = import(ex);
    ASSERT_NE(remote, nullptr);

    // Local -> exporter: 64 KiB at offset 4096 of the exporter's buffer.
    doca_buf *src = buf(0, 65536, 65536);
    doca_buf *dst = remote_buf(remote, ex.addr + 4096, 65536, 0);
    submit(src, dst, 1);
    // Exporter -> local: 8 KiB from offset 200000.
    doca_buf *rsrc = remote_buf(remote, ex.addr + 200000, 8192, 8192);
    doca_buf *ldst = buf(500000, 8192, 0);
    submit(rsrc, ldst, 2);
    wait_for(2);
    for (const auto &d : done) EXPECT_EQ(d.status, DOCA_SUCCESS);
    EXPECT_EQ(data_len(dst), 65536u);

    std::vector<uint8_t> in_exporter = ex.bytes(4096, 65536);
    ASSERT_EQ(in_exporter.size(), 65536u);
    EXPECT_TRUE(std::equal(in_exporter.begin(), in_exporter.end(), memory.begin()))
        << "bytes differ in exporter";
    EXPECT_EQ(ex.bytes(4095, 1)[0], exporter_pattern(4095)) << "neighbour before untouched";
    EXPECT_EQ(ex.bytes(4096 + 65536, 1)[0], exporter_pattern(4096 + 65536)) << "neighbour after untouched";
    for (size_t i = 0; i < 8192; ++i) ASSERT_EQ(memory[500000 + i], exporter_pattern(200000 + i)) << i;

    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}

TEST_P(DmaCrossProcess, CopiesBetweenTwoExportersThroughTheEngine) {
    ExporterProcess a(64 * 1024, "rw", GetParam()), b(64 * 1024, "rw", GetParam());
    doca_mmap *ma = import(a), *mb = import(b);
    ASSERT_NE(ma, nullptr);
    ASSERT_NE(mb, nullptr);
    // 40000 bytes from a[1000..] into b[0..]: neither side is CPU-reachable here.
    submit(remote_buf(ma, a.addr + 1000, 40000, 40000), remote_buf(mb, b.addr, 40000, 0));
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_SUCCESS);
    std::vector<uint8_t> got = b.bytes(0, 40000);
    ASSERT_EQ(got.size(), 40000u);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], exporter_pattern(1000 + i)) << i;
    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(ma), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(mb), DOCA_SUCCESS);
}

TEST_P(DmaCrossProcess, ReadOnlyExportRefusesEngineWrites) {
    ExporterProcess ex(64 * 1024, "ro", GetParam());
    doca_mmap *remote = import(ex);
    ASSERT_NE(remote, nullptr);
    submit(buf(0, 64, 64), remote_buf(remote, ex.addr, 64, 0));
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(ex.bytes(0, 1)[0], exporter_pattern(0));
    expect_stopped_by_failure_then_restart();
    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}

TEST_P(DmaCrossProcess, RevokedExportFailsTheTaskAsNotConnected) {
    ExporterProcess ex(64 * 1024, "rw", GetParam());
    doca_mmap *remote = import(ex);
    ASSERT_NE(remote, nullptr);
    doca_buf *dst = remote_buf(remote, ex.addr, 4096, 0);
    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    submit(buf(0, 4096, 4096), dst);
    wait_for(1);
    EXPECT_EQ(done[0].status, DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(data_len(dst), 0u);
    expect_stopped_by_failure_then_restart();
    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}

// The export is revoked while the importer uses it (the memfd case: through the shared mapping),
// then the exporter writes new bytes: the next task reading from it fails as NOT_CONNECTED and
// copies nothing, neither the old pages nor the new ones.
TEST_P(DmaCrossProcess, RevocationWhileInUseFailsTheNextReadWithoutTouchingItsDestination) {
    ExporterProcess ex(64 * 1024, "rw", GetParam());
    doca_mmap *remote = import(ex);
    ASSERT_NE(remote, nullptr);
    doca_buf *src = remote_buf(remote, ex.addr, 4096, 4096);
    doca_buf *dst = buf(0, 4096, 0);
    for (uint64_t n = 1; n <= 8; ++n) { // in use: these copies go through the import
        ASSERT_EQ(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
        submit(src, dst, n);
        wait_for(n);
        ASSERT_EQ(done.back().status, DOCA_SUCCESS);
    }
    for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(memory[i], exporter_pattern(i)) << i;
    std::fill(memory.begin(), memory.begin() + 4096, 0xee);

    ASSERT_EQ(ex.command("STOP"), "STOPPED");
    ASSERT_EQ(ex.command("FILL 90"), "FILLED"); // 0x5a, written after the revocation
    ASSERT_EQ(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
    submit(src, dst, 9);
    wait_for(9);
    EXPECT_EQ(done.back().status, DOCA_ERROR_NOT_CONNECTED);
    EXPECT_EQ(data_len(dst), 0u);
    for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(memory[i], 0xee) << "destination written at " << i;
    expect_stopped_by_failure_then_restart();
    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Memory, DmaCrossProcess, ::testing::Values("private", "memfd"));

TEST_P(DmaCrossProcess, ExporterKilledUnderLoadFailsTheNextTaskAsNotConnected) {
    ExporterProcess ex(256 * 1024, "rw", GetParam());
    doca_mmap *remote = import(ex);
    ASSERT_NE(remote, nullptr);
    doca_buf *src = remote_buf(remote, ex.addr, 64 * 1024, 64 * 1024);
    doca_buf *dst = buf(0, 64 * 1024, 0);
    std::atomic<size_t> completed{0};
    std::thread killer([&] {
        while (completed.load() < 20) std::this_thread::yield();
        ex.kill_now();
    });
    // Copies out of the exporter, one after the other, until one fails.
    size_t n = 0;
    while (n < 1000000) {
        ASSERT_EQ(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
        submit(src, dst, n);
        wait_for(++n);
        if (done.back().status != DOCA_SUCCESS) break;
        for (size_t i = 0; i < 64 * 1024; i += 997) ASSERT_EQ(memory[i], exporter_pattern(i)) << i;
        completed.store(n);
    }
    killer.join();
    EXPECT_EQ(done.back().status, DOCA_ERROR_NOT_CONNECTED);
    expect_stopped_by_failure_then_restart();
    // And every task after it.
    submit(src, dst, n);
    wait_for(++n);
    EXPECT_EQ(done.back().status, DOCA_ERROR_NOT_CONNECTED);
    expect_stopped_by_failure_then_restart();
    drop_bufs();
    EXPECT_EQ(doca_mmap_destroy(remote), DOCA_SUCCESS);
}
