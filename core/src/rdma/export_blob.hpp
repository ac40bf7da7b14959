// The RDMA export descriptor: what a peer needs to reach an mmap with RDMA READ/WRITE (address,
// length, rkey, permissions). It crosses machines, so the layout is fixed little-endian; a magic
// distinct from the PCI blob's tells doca_mmap_create_from_export which kind of export it holds.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <cstdint>

namespace skiff::core::rdma {

struct RdmaExportDesc {
    uint64_t addr = 0; // in the exporter's address space (the RDMA virtual address of the MR)
    uint64_t len = 0;
    uint32_t rkey = 0;
    uint32_t permissions = 0; // DOCA_ACCESS_FLAG_* of the exported mmap
};

constexpr size_t rdma_export_blob_size = 32;

// True when the blob starts with the RDMA export magic (the kind check, before decoding).
bool is_rdma_export(const void *blob, size_t len);
void encode_rdma_export(const RdmaExportDesc &desc, uint8_t *out);
// INVALID_VALUE naming what is wrong (length, magic, version, range).
Result<RdmaExportDesc> decode_rdma_export(const void *blob, size_t len);

} // namespace skiff::core::rdma
