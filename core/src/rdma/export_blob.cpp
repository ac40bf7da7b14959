// Layout (little-endian): magic u32 | version u16 | reserved u16 | addr u64 | len u64 | rkey u32 |
// permissions u32.
#include "rdma/export_blob.hpp"

#include <endian.h>

#include <cstring>
#include <string>

namespace skiff::core::rdma {

namespace {

constexpr uint32_t magic = 0x44524b53; // "SKRD"
constexpr uint16_t version = 1;

template <typename T>
void put(uint8_t *out, size_t off, T v) {
    std::memcpy(out + off, &v, sizeof v);
}
template <typename T>
T get(const uint8_t *in, size_t off) {
    T v;
    std::memcpy(&v, in + off, sizeof v);
    return v;
}

} // namespace

bool is_rdma_export(const void *blob, size_t len) {
    return blob != nullptr && len >= 4 &&
           le32toh(get<uint32_t>(static_cast<const uint8_t *>(blob), 0)) == magic;
}

void encode_rdma_export(const RdmaExportDesc &d, uint8_t *out) {
    std::memset(out, 0, rdma_export_blob_size);
    put(out, 0, htole32(magic));
    put(out, 4, htole16(version));
    put(out, 8, htole64(d.addr));
    put(out, 16, htole64(d.len));
    put(out, 24, htole32(d.rkey));
    put(out, 28, htole32(d.permissions));
}

Result<RdmaExportDesc> decode_rdma_export(const void *blob, size_t len) {
    if (blob == nullptr || len != rdma_export_blob_size)
        return make_error(DOCA_ERROR_INVALID_VALUE, "RDMA export descriptor is " + std::to_string(len) +
                                                        " bytes, expected " +
                                                        std::to_string(rdma_export_blob_size));
    auto in = static_cast<const uint8_t *>(blob);
    if (!is_rdma_export(blob, len))
        return make_error(DOCA_ERROR_INVALID_VALUE, "not an RDMA export descriptor (bad magic)");
    if (le16toh(get<uint16_t>(in, 4)) != version)
        return make_error(DOCA_ERROR_INVALID_VALUE, "RDMA export descriptor version " +
                                                        std::to_string(le16toh(get<uint16_t>(in, 4))) +
                                                        " is not supported (expected 1)");
    RdmaExportDesc d;
    d.addr = le64toh(get<uint64_t>(in, 8));
    d.len = le64toh(get<uint64_t>(in, 16));
    d.rkey = le32toh(get<uint32_t>(in, 24));
    d.permissions = le32toh(get<uint32_t>(in, 28));
    if (d.len == 0 || d.addr + d.len < d.addr)
        return make_error(DOCA_ERROR_INVALID_VALUE, "RDMA export descriptor has an empty or wrapping range");
    return d;
}

} // namespace skiff::core::rdma
