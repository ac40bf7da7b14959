#include "mem/export_blob.hpp"

#include <cstring>

namespace skiff::core::mem {

namespace {

constexpr char blob_magic[8] = {'S', 'K', 'F', 'P', 'C', 'I', 'E', 'X'};
constexpr uint32_t blob_version = 2; // 2: liveness page and shared-memory backing

// The wire layout; fixed size, no pointers.
struct Wire {
    char magic[8];
    uint32_t version;
    uint32_t permissions;
    int32_t exporter_pid;
    int32_t segment_fd;
    uint64_t token;
    uint64_t addr;
    uint64_t len;
    char exporter_pci[16];
    char exporter_name[64];
    int32_t liveness_fd;
    int32_t backing_fd;
    uint64_t backing_offset;
    uint64_t backing_dev;
    uint64_t backing_ino;
};
static_assert(sizeof(Wire) == pci_export_blob_size, "the export blob has a fixed size");

void copy_field(char *dst, size_t cap, const std::string &s) {
    std::memset(dst, 0, cap);
    std::memcpy(dst, s.data(), std::min(s.size(), cap - 1));
}

} // namespace

void encode_pci_export(const PciExportDesc &desc, uint8_t *out) {
    Wire w{};
    std::memcpy(w.magic, blob_magic, sizeof(blob_magic));
    w.version = blob_version;
    w.permissions = desc.permissions;
    w.exporter_pid = desc.exporter_pid;
    w.segment_fd = desc.segment_fd;
    w.token = desc.token;
    w.addr = desc.addr;
    w.len = desc.len;
    w.liveness_fd = desc.liveness_fd;
    w.backing_fd = desc.backing_fd;
    w.backing_offset = desc.backing_offset;
    w.backing_dev = desc.backing_dev;
    w.backing_ino = desc.backing_ino;
    copy_field(w.exporter_pci, sizeof(w.exporter_pci), desc.exporter_pci);
    copy_field(w.exporter_name, sizeof(w.exporter_name), desc.exporter_name);
    std::memcpy(out, &w, sizeof(w));
}

Result<PciExportDesc> decode_pci_export(const void *blob, size_t len) {
    if (len != sizeof(Wire))
        return make_error(DOCA_ERROR_INVALID_VALUE, "export descriptor is " + std::to_string(len) +
                                                        " bytes; a skiff PCI export descriptor is " +
                                                        std::to_string(sizeof(Wire)));
    Wire w;
    std::memcpy(&w, blob, sizeof(w));
    if (std::memcmp(w.magic, blob_magic, sizeof(blob_magic)) != 0)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "export descriptor does not start with the skiff PCI export magic (not produced by "
                          "doca_mmap_export_pci, or corrupted in transit)");
    if (w.version != blob_version)
        return make_error(DOCA_ERROR_INVALID_VALUE, "export descriptor version " + std::to_string(w.version) +
                                                        " is not supported; expected " +
                                                        std::to_string(blob_version));
    if (w.exporter_pid <= 0 || w.segment_fd < 0 || w.liveness_fd < 0 || w.backing_fd < -1 || w.len == 0 ||
        w.addr + w.len < w.addr || w.exporter_pci[sizeof(w.exporter_pci) - 1] != '\0' ||
        w.exporter_name[sizeof(w.exporter_name) - 1] != '\0')
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "export descriptor has inconsistent fields (pid, fd or range)");
    PciExportDesc d;
    d.exporter_pid = w.exporter_pid;
    d.segment_fd = w.segment_fd;
    d.token = w.token;
    d.addr = w.addr;
    d.len = w.len;
    d.permissions = w.permissions;
    d.exporter_pci = w.exporter_pci;
    d.exporter_name = w.exporter_name;
    d.liveness_fd = w.liveness_fd;
    d.backing_fd = w.backing_fd;
    d.backing_offset = w.backing_offset;
    d.backing_dev = w.backing_dev;
    d.backing_ino = w.backing_ino;
    return d;
}

} // namespace skiff::core::mem
