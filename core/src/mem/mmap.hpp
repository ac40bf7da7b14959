// The object behind doca_mmap: one memory range, its devices and permissions, its lifecycle flags,
// the bufs pointing into it, and either its exports (local mmap) or its link to the exporter
// (imported mmap).
#pragma once

#include <doca_mmap.h>

#include "mem/export_segment.hpp"
#include "mem/exporter_liveness.hpp"
#include "mem/remote_memory.hpp"
#include "mem/shared_backing.hpp"
#include "mem/shared_mapping.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

struct ibv_mr;

namespace skiff::core::mem {

// Default device limit of a new mmap (doca_mmap_set_max_num_devices changes it before start).
constexpr uint32_t default_max_num_devices = 16;

// One doca_mmap_export_pci result: the blob handed to the caller, the fd on the shared memory
// behind the range (if any), and the revocation segment (declared last: destroyed, so revoked,
// before the fd closes).
struct ExportRecord {
    const doca_dev *dev = nullptr;
    std::vector<uint8_t> blob;
    std::unique_ptr<SharedBacking> backing;
    std::unique_ptr<ExportSegment> segment;
};

// What an imported mmap needs to reach the exporter: the revocation segment, the exporter's
// liveness page, and either the exporter's pages mapped here (shared memory) or /proc/<pid>/mem.
struct ImportLink {
    std::unique_ptr<SegmentView> segment;
    std::unique_ptr<LivenessView> liveness;
    std::unique_ptr<SharedMapping> shared;
    std::unique_ptr<RemoteMemory> remote;
};

} // namespace skiff::core::mem

struct doca_mmap {
    uint8_t *addr = nullptr; // in the exporter's address space for an imported mmap
    size_t len = 0;
    bool range_set = false;
    // The range is DPA heap memory (doca_mmap_set_dpa_memrange): the mmap's one device is the DPA
    // context's, and doca_mmap_add_dev is not allowed (doca_mmap.h).
    bool dpa_range = false;
    uint32_t permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
    uint32_t max_num_devices = skiff::core::mem::default_max_num_devices;
    std::vector<doca_dev *> devs;
    union doca_data user_data {};

    doca_mmap_memrange_free_cb_t *free_cb = nullptr;
    void *free_cb_opaque = nullptr;
    bool free_cb_armed = false; // started with this callback and not changed since

    bool started = false;
    bool ever_started = false;
    bool exported = false;
    bool from_export = false;

    std::atomic<uint32_t> num_bufs{0};

    std::vector<std::unique_ptr<skiff::core::mem::ExportRecord>> exports;
    std::unique_ptr<skiff::core::mem::ImportLink> import;

    // RDMA: one memory registration per device (core/src/rdma/verbs.cpp) and the RDMA export
    // blobs; for an mmap imported from an RDMA export, the peer's rkey.
    struct RdmaReg {
        const doca_dev *dev = nullptr;
        ibv_mr *mr = nullptr;
        std::vector<uint8_t> blob; // the doca_mmap_export_rdma descriptor, once asked for
    };
    std::vector<RdmaReg> rdma_regs;
    bool rdma_remote = false;
    uint32_t rdma_rkey = 0;

    // The DPA's 32-bit handle of the mmap, 0 until asked for (mem/dpa_mmap_handles.hpp).
    std::atomic<uint32_t> dpa_handle{0};
};

namespace skiff::core::mem {

// True when [p, p + n) lies inside the mmap's range.
inline bool mmap_contains(const doca_mmap *m, const void *p, size_t n) {
    auto base = reinterpret_cast<uintptr_t>(m->addr);
    auto a = reinterpret_cast<uintptr_t>(p);
    return m->range_set && a >= base && n <= m->len && a - base <= m->len - n;
}

// Revokes and frees every export of the mmap (on stop / destroy).
void mmap_revoke_exports(doca_mmap *m);

} // namespace skiff::core::mem
