// Export and import rules inside one process (spec 5.3 rules 15, 16, 18): the host function pf0
// exports, the DPU PF p0 imports.
#include <doca_mmap.h>

#include "../../core/src/mem/export_blob.hpp"
#include "../../core/src/mem/mem_access.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace {

class ExportRules : public ::testing::Test {
  protected:
    void SetUp() override {
        pf0 = skiff::test::open_host_pf0();
        pf0vf0 = skiff::test::open_by_iface("host", "ens1f0v0");
        p0 = skiff::test::open_dpu_p0();
        p1 = skiff::test::open_dpu_p1();
        ASSERT_TRUE(pf0 && pf0vf0 && p0 && p1);
        ASSERT_EQ(doca_mmap_create(&mmap), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_set_memrange(mmap, memory.data(), memory.size()), DOCA_SUCCESS);
    }
    void TearDown() override {
        if (mmap != nullptr) {
            EXPECT_EQ(doca_mmap_destroy(mmap), DOCA_SUCCESS);
        }
        for (doca_dev *d : {pf0, pf0vf0, p0, p1}) EXPECT_EQ(doca_dev_close(d), DOCA_SUCCESS);
    }
    void start_exportable(doca_dev *dev, uint32_t pci = DOCA_ACCESS_FLAG_PCI_READ_WRITE) {
        ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | pci), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_add_dev(mmap, dev), DOCA_SUCCESS);
        ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    }

    std::vector<uint8_t> memory = std::vector<uint8_t>(8192, 0x11);
    doca_dev *pf0 = nullptr, *pf0vf0 = nullptr, *p0 = nullptr, *p1 = nullptr;
    doca_mmap *mmap = nullptr;
    const void *desc = nullptr;
    size_t desc_len = 0;
};

} // namespace

TEST_F(ExportRules, Rule15_ExportNeedsAStartedMmap) {
    ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, pf0), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED);
}

TEST_F(ExportRules, Rule15_ExportNeedsADeviceAlreadyAdded) {
    start_exportable(pf0);
    EXPECT_EQ(doca_mmap_export_pci(mmap, pf0vf0, &desc, &desc_len), DOCA_ERROR_NOT_FOUND);
}

TEST_F(ExportRules, Rule15_ExportPciNeedsPciPermission) {
    ASSERT_EQ(doca_mmap_add_dev(mmap, pf0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS); // LOCAL_READ_WRITE only
    EXPECT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED);
    uint8_t exported = 1;
    ASSERT_EQ(doca_mmap_get_exported(mmap, &exported), DOCA_SUCCESS);
    EXPECT_EQ(exported, 0);
}

TEST_F(ExportRules, Rule10_ExportWithADeviceLackingTheCapabilityIsNotSupported) {
    start_exportable(p0); // a DPU PF cannot export over PCI
    EXPECT_EQ(doca_mmap_export_pci(mmap, p0, &desc, &desc_len), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(ExportRules, Rule15_ExportRdmaWithADeviceWithoutRdmaIsNotSupported) {
    ASSERT_EQ(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(mmap, pf0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(mmap), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_export_rdma(mmap, pf0, &desc, &desc_len), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(ExportRules, Rule15_ExportMarksTheMmapExportedAndFreezesIt) {
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    EXPECT_GT(desc_len, 0u);
    uint8_t exported = 0;
    ASSERT_EQ(doca_mmap_get_exported(mmap, &exported), DOCA_SUCCESS);
    EXPECT_EQ(exported, 1);
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS); // revokes, frees the descriptor
    EXPECT_EQ(doca_mmap_add_dev(mmap, pf0vf0), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_start(mmap), DOCA_ERROR_NOT_PERMITTED);
}

TEST_F(ExportRules, Rule16_ImportedMmapRefusesReconfigurationAndReexport) {
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    doca_data user{.u64 = 42};
    doca_mmap *imp = nullptr;
    ASSERT_EQ(doca_mmap_create_from_export(&user, desc, desc_len, p0, &imp), DOCA_SUCCESS);
    doca_data got{};
    ASSERT_EQ(doca_mmap_get_user_data(imp, &got), DOCA_SUCCESS);
    EXPECT_EQ(got.u64, 42u);
    uint8_t from_export = 0;
    ASSERT_EQ(doca_mmap_get_from_export(imp, &from_export), DOCA_SUCCESS);
    EXPECT_EQ(from_export, 1);
    void *addr = nullptr;
    size_t len = 0;
    ASSERT_EQ(doca_mmap_get_memrange(imp, &addr, &len), DOCA_SUCCESS);
    EXPECT_EQ(addr, memory.data());
    EXPECT_EQ(len, memory.size());
    EXPECT_EQ(doca_mmap_set_permissions(imp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_set_memrange(imp, memory.data(), 16), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_set_max_num_devices(imp, 4), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_add_dev(imp, p1), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_rm_dev(imp, p0), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_export_pci(imp, p0, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_start(imp), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(skiff::core::mmap_cpu_ptr(imp, memory.data(), 1), nullptr);
    // Engines still reach the bytes.
    uint8_t v = 0x77;
    ASSERT_EQ(skiff::core::mmap_write(imp, memory.data() + 5, &v, 1), DOCA_SUCCESS);
    EXPECT_EQ(memory[5], 0x77);
    // Stop then destroy, as NVIDIA's RDMA samples release an imported mmap: the stop succeeds
    // (once), and the import cannot be started again.
    EXPECT_EQ(doca_mmap_stop(imp), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_stop(imp), DOCA_ERROR_BAD_STATE);
    EXPECT_EQ(doca_mmap_start(imp), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(imp), DOCA_SUCCESS);
}

TEST_F(ExportRules, Rule18_HostFunctionCannotImportAPciExport) {
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    doca_mmap *imp = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, desc, desc_len, pf0vf0, &imp), DOCA_ERROR_NOT_SUPPORTED);
}

TEST_F(ExportRules, Rule11_ImportNeedsTheParentPfOfTheExportingFunction) {
    start_exportable(pf0vf0); // 0b:00.2, represented by hpf0vf0 under p0
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0vf0, &desc, &desc_len), DOCA_SUCCESS);
    doca_mmap *imp = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, desc, desc_len, p1, &imp), DOCA_ERROR_NOT_PERMITTED);
    ASSERT_EQ(doca_mmap_create_from_export(nullptr, desc, desc_len, p0, &imp), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(imp), DOCA_SUCCESS);
}

TEST_F(ExportRules, CorruptDescriptorIsInvalidValue) {
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    std::vector<uint8_t> bad(static_cast<const uint8_t *>(desc),
                             static_cast<const uint8_t *>(desc) + desc_len);
    bad[0] ^= 0xff;
    doca_mmap *imp = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, bad.data(), bad.size(), p0, &imp),
              DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, desc, desc_len - 1, p0, &imp), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(ExportRules, SameDeviceExportedTwiceHandsOutTheSameDescriptor) {
    start_exportable(pf0);
    const void *again = nullptr;
    size_t again_len = 0;
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &again, &again_len), DOCA_SUCCESS);
    EXPECT_EQ(again, desc);
    EXPECT_EQ(again_len, desc_len);
}

namespace {

size_t thread_count() {
    size_t n = 0;
    for (const auto &entry : std::filesystem::directory_iterator("/proc/self/task")) {
        (void)entry;
        ++n;
    }
    return n;
}

} // namespace

TEST_F(ExportRules, Rule3_ExportAndImportCreateNoThreads) {
    size_t before = thread_count();
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    doca_mmap *imp = nullptr;
    ASSERT_EQ(doca_mmap_create_from_export(nullptr, desc, desc_len, p0, &imp), DOCA_SUCCESS);
    uint8_t b = 0;
    ASSERT_EQ(skiff::core::mmap_read(imp, memory.data(), &b, 1), DOCA_SUCCESS);
    EXPECT_EQ(thread_count(), before);
    EXPECT_EQ(doca_mmap_destroy(imp), DOCA_SUCCESS);
}

TEST_F(ExportRules, Rule17_StaleDescriptorWhoseFdNowNamesAnotherFileIsNotConnected) {
    start_exportable(pf0);
    ASSERT_EQ(doca_mmap_export_pci(mmap, pf0, &desc, &desc_len), DOCA_SUCCESS);
    std::vector<uint8_t> stale(static_cast<const uint8_t *>(desc),
                               static_cast<const uint8_t *>(desc) + desc_len);
    auto decoded = skiff::core::mem::decode_pci_export(stale.data(), stale.size());
    ASSERT_TRUE(decoded.ok());
    ASSERT_EQ(doca_mmap_stop(mmap), DOCA_SUCCESS); // closes the segment; its fd number is free again
    // The exporter reuses the number for an unrelated, empty file.
    FILE *tmp = std::tmpfile();
    ASSERT_NE(tmp, nullptr);
    ASSERT_EQ(dup2(fileno(tmp), decoded->segment_fd), decoded->segment_fd);
    doca_mmap *imp = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, stale.data(), stale.size(), p0, &imp),
              DOCA_ERROR_NOT_CONNECTED);
    close(decoded->segment_fd);
    std::fclose(tmp);
}
