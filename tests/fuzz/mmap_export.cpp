// Fuzz harness: doca_mmap_create_from_export with arbitrary export bytes. An export descriptor
// crosses a process boundary (skiff-host -> the target); the importer must refuse a forged or
// corrupted one and never touch memory it names unless the exporter really exported it.
//
// The harness exports an 8 KiB region of its own (host PF, PCI read/write) once, so the genuine
// descriptor, with a live exporter, segment and token, is at hand. Input: [mode][bytes].
// mode bit 0 = 0: the bytes are the descriptor as they are; 1: the genuine descriptor with the
// bytes XORed over it (near-valid descriptors: right magic and pid, one field off).
// Properties: a descriptor that imports describes exactly the genuine export (same range, no
// more permissions), or is an RDMA export (addr + rkey: the NIC checks those, not the importer);
// an import that succeeds can be destroyed; no crash, no sanitizer report.
#include "doca_devices.hpp"
#include "fuzz_input.hpp"
#include "fuzz_target.hpp"

#include "../../core/src/mem/export_blob.hpp"

#include <doca_mmap.h>

#include <cstring>
#include <vector>

using namespace skiff;

namespace {

struct GenuineExport {
    GenuineExport() {
        fuzz::quiet_logs();
        host_pf = fuzz::open_device("host", "ens1f0");
        dpu_p0 = fuzz::open_device("dpu", "p0");
        if (doca_mmap_create(&mmap) != DOCA_SUCCESS ||
            doca_mmap_set_memrange(mmap, memory.data(), memory.size()) != DOCA_SUCCESS ||
            doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
            doca_mmap_add_dev(mmap, host_pf) != DOCA_SUCCESS || doca_mmap_start(mmap) != DOCA_SUCCESS)
            std::abort();
        const void *d = nullptr;
        size_t len = 0;
        if (doca_mmap_export_pci(mmap, host_pf, &d, &len) != DOCA_SUCCESS) std::abort();
        blob.assign(static_cast<const uint8_t *>(d), static_cast<const uint8_t *>(d) + len);
    }
    std::vector<uint8_t> memory = std::vector<uint8_t>(8192, 0x11);
    doca_dev *host_pf = nullptr, *dpu_p0 = nullptr;
    doca_mmap *mmap = nullptr;
    std::vector<uint8_t> blob;
};

GenuineExport &genuine() {
    static GenuineExport *g = new GenuineExport; // for the whole process: the export stays live
    return *g;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &g = genuine();
    fuzz::Input in(data, size);
    bool over_genuine = in.u8() & 1;
    auto bytes = in.rest();
    std::vector<uint8_t> desc;
    if (over_genuine) {
        desc = g.blob;
        for (size_t i = 0; i < bytes.size() && i < desc.size(); ++i) desc[i] ^= bytes[i];
        if (bytes.size() > desc.size()) desc.insert(desc.end(), bytes.begin() + desc.size(), bytes.end());
    } else {
        desc.assign(bytes.begin(), bytes.end());
    }
    // Exactly sized on the heap: a read past the descriptor's end is an ASan report.
    auto copy = std::make_unique<uint8_t[]>(desc.size() + (desc.empty() ? 1 : 0));
    if (!desc.empty()) std::memcpy(copy.get(), desc.data(), desc.size());
    for (doca_dev *dev : {g.dpu_p0, g.host_pf}) {
        doca_mmap *imported = nullptr;
        doca_error_t r = doca_mmap_create_from_export(nullptr, copy.get(), desc.size(), dev, &imported);
        if (r != DOCA_SUCCESS) {
            SKIFF_FUZZ_CHECK(imported == nullptr);
            continue;
        }
        SKIFF_FUZZ_CHECK(imported != nullptr);
        auto pci = core::mem::decode_pci_export(copy.get(), desc.size());
        if (pci) { // a PCI import: only the genuine export's range, with at most its rights
            void *addr = nullptr;
            size_t len = 0;
            SKIFF_FUZZ_CHECK(doca_mmap_get_memrange(imported, &addr, &len) == DOCA_SUCCESS);
            SKIFF_FUZZ_CHECK(addr == g.memory.data() && len == g.memory.size());
            SKIFF_FUZZ_CHECK((pci->permissions & ~uint32_t(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE |
                                                           DOCA_ACCESS_FLAG_PCI_READ_WRITE)) == 0);
        }
        SKIFF_FUZZ_CHECK(doca_mmap_destroy(imported) == DOCA_SUCCESS);
    }
    return 0;
}
