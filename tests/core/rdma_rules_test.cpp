// doca_rdma rules that hold on every machine (no RDMA device needed): creation is refused on a
// device without RDMA, RDMA export and import of an RDMA export need an RDMA device, and the
// RDMA export descriptor round-trips and rejects foreign bytes. The full behaviour (connections,
// send/receive/read/write, state rules of a started context) runs on soft-RoCE in the lab:
// tests/helpers/rdma_pingpong.cpp, `scripts/lab-tests.sh doca-rdma`.
#include <doca_mmap.h>
#include <doca_rdma.h>

#include "../../core/src/rdma/export_blob.hpp"
#include "mmap_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

using skiff::core::rdma::decode_rdma_export;
using skiff::core::rdma::encode_rdma_export;
using skiff::core::rdma::is_rdma_export;
using skiff::core::rdma::rdma_export_blob_size;
using skiff::core::rdma::RdmaExportDesc;

class RdmaRules : public ::testing::Test {
  protected:
    void SetUp() override {
        pf0 = skiff::test::open_host_pf0();
        p0 = skiff::test::open_dpu_p0();
        ASSERT_TRUE(pf0 && p0);
    }
    void TearDown() override {
        for (doca_dev *d : {pf0, p0}) EXPECT_EQ(doca_dev_close(d), DOCA_SUCCESS);
    }
    doca_dev *pf0 = nullptr, *p0 = nullptr;
};

std::vector<uint8_t> blob_of(const RdmaExportDesc &d) {
    std::vector<uint8_t> b(rdma_export_blob_size);
    encode_rdma_export(d, b.data());
    return b;
}

} // namespace

TEST_F(RdmaRules, CreateOnADeviceWithoutRdmaIsNotSupported) {
    doca_rdma *rdma = nullptr;
    EXPECT_EQ(doca_rdma_create(pf0, &rdma), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(doca_rdma_create(p0, &rdma), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(rdma, nullptr);
}

TEST_F(RdmaRules, CreateRejectsNullArguments) {
    doca_rdma *rdma = nullptr;
    EXPECT_EQ(doca_rdma_create(nullptr, &rdma), DOCA_ERROR_INVALID_VALUE);
    EXPECT_EQ(doca_rdma_create(pf0, nullptr), DOCA_ERROR_INVALID_VALUE);
}

TEST_F(RdmaRules, ExportRdmaWithoutRdmaPermissionIsNotPermitted) {
    std::vector<uint8_t> mem(4096);
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem.data(), mem.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(m, p0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    const void *desc = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_mmap_export_rdma(m, p0, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(RdmaRules, ExportRdmaOnADeviceWithoutRdmaFailsCleanly) {
    std::vector<uint8_t> mem(4096);
    doca_mmap *m = nullptr;
    ASSERT_EQ(doca_mmap_create(&m), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_memrange(m, mem.data(), mem.size()), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE),
              DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_add_dev(m, p0), DOCA_SUCCESS);
    ASSERT_EQ(doca_mmap_start(m), DOCA_SUCCESS);
    const void *desc = nullptr;
    size_t len = 0;
    EXPECT_EQ(doca_mmap_export_rdma(m, p0, &desc, &len), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(desc, nullptr);
    // Nothing was left behind: the mmap still stops and is destroyed normally.
    EXPECT_EQ(doca_mmap_stop(m), DOCA_SUCCESS);
    EXPECT_EQ(doca_mmap_destroy(m), DOCA_SUCCESS);
}

TEST_F(RdmaRules, ImportOfAnRdmaExportNeedsAnRdmaDevice) {
    RdmaExportDesc d{0x10000, 4096, 0x1234, DOCA_ACCESS_FLAG_RDMA_READ};
    auto b = blob_of(d);
    doca_mmap *m = nullptr;
    EXPECT_EQ(doca_mmap_create_from_export(nullptr, b.data(), b.size(), p0, &m), DOCA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(m, nullptr);
}

TEST(RdmaExportBlob, RoundTrips) {
    RdmaExportDesc d{0x7f0012345000ull, 1ull << 20, 0xabcdef01u,
                     DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE};
    auto b = blob_of(d);
    ASSERT_TRUE(is_rdma_export(b.data(), b.size()));
    auto r = decode_rdma_export(b.data(), b.size());
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.value().addr, d.addr);
    EXPECT_EQ(r.value().len, d.len);
    EXPECT_EQ(r.value().rkey, d.rkey);
    EXPECT_EQ(r.value().permissions, d.permissions);
}

TEST(RdmaExportBlob, ForeignBytesAreInvalidValue) {
    auto b = blob_of({0x1000, 4096, 7, DOCA_ACCESS_FLAG_RDMA_READ});
    auto truncated = decode_rdma_export(b.data(), b.size() - 1);
    ASSERT_FALSE(truncated.ok());
    EXPECT_EQ(truncated.error().code, DOCA_ERROR_INVALID_VALUE);
    auto bad_magic = b;
    bad_magic[0] ^= 0xff;
    EXPECT_FALSE(is_rdma_export(bad_magic.data(), bad_magic.size()));
    EXPECT_FALSE(decode_rdma_export(bad_magic.data(), bad_magic.size()).ok());
    auto bad_version = b;
    bad_version[4] = 9;
    EXPECT_FALSE(decode_rdma_export(bad_version.data(), bad_version.size()).ok());
    auto empty = blob_of({0x1000, 0, 7, 0});
    EXPECT_FALSE(decode_rdma_export(empty.data(), empty.size()).ok());
    auto wrapping = blob_of({~0ull - 10, 4096, 7, 0});
    EXPECT_FALSE(decode_rdma_export(wrapping.data(), wrapping.size()).ok());
}
