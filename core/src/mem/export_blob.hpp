// The PCI export descriptor: a self-contained, fixed-size blob that names the exporter process, its
// revocation segment and the exported range. Both processes run on the same machine (the emulated
// PCI link), so the layout is the native one; magic and version guard against foreign bytes.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/types.h>

namespace skiff::core::mem {

struct PciExportDesc {
    pid_t exporter_pid = 0;
    int segment_fd = -1; // the revocation segment's fd number in the exporter
    uint64_t token = 0;  // random; repeated in the segment
    uint64_t addr = 0;   // the range, in the exporter's address space
    uint64_t len = 0;
    uint32_t permissions = 0;
    std::string exporter_pci; // normalized PCI address of the exporting host function
    std::string exporter_name;
    int liveness_fd = -1; // exporter_liveness.hpp
    // The shared-memory fast path (shared_backing.hpp): fd of the file behind the range in the
    // exporter (-1: private memory), the range's offset in it, and the file's identity.
    int backing_fd = -1;
    uint64_t backing_offset = 0;
    uint64_t backing_dev = 0;
    uint64_t backing_ino = 0;
};

// Encodes into `out` (exactly pci_export_blob_size bytes).
constexpr size_t pci_export_blob_size = 160;
void encode_pci_export(const PciExportDesc &desc, uint8_t *out);

// Decodes a blob; INVALID_VALUE naming what is wrong (length, magic, version, fields).
Result<PciExportDesc> decode_pci_export(const void *blob, size_t len);

} // namespace skiff::core::mem
