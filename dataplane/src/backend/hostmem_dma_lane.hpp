// Internal: the DMA state one poll group thread uses for one hostmem namespace. Built on the
// thread's first I/O and kept: a progress engine, a doca_dma context, a buf inventory, the
// import of the host's export, and one local doca_mmap per transport buffer area the thread has
// seen (registered once per connection, so DMA lands straight in the request's buffer).
#pragma once

#include "skiff/dataplane/hostmem/control_channel.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <nvme/types.h>

#include <array>
#include <cstdint>

namespace skiff::dataplane::hostmem {

class DmaLane {
  public:
    // Scratch for what has no transport buffer (compare, write zeroes): registered too.
    static constexpr size_t kScratchBytes = 1 << 20;
    // The status of I/O while the host's export is gone: ANA Inaccessible (SCT 3h, SC 02h).
    static constexpr uint16_t kInaccessible =
        nvmeof::wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);

    explicit DmaLane(doca_dev *dev) : dev_(dev) {}
    ~DmaLane();
    DmaLane(const DmaLane &) = delete;
    DmaLane &operator=(const DmaLane &) = delete;

    Status start();

    // Copies len bytes between host offset `offset` of `record`'s region and local memory.
    // Returns 0, or an NVMe status: ANA Inaccessible when the host's export is gone.
    uint16_t copy(const ExportRecord *record, uint64_t offset, uint8_t *local, size_t len, bool to_host);
    uint8_t *scratch() const { return scratch_; }

  private:
    struct LocalArea {
        nvmeof::transport::BufferArea area;
        doca_mmap *mmap = nullptr;
    };
    static constexpr size_t kMaxAreas = 64;

    bool ensure_import(const ExportRecord *record);
    void drop_import();
    doca_mmap *local_mmap_for(uint8_t *p, size_t len);
    void drop_local_areas();
    doca_mmap *register_local(uint8_t *base, size_t len);
    uint16_t run_task(doca_buf *src, doca_buf *dst);
    void restart_after_failure();
    static void on_done(doca_dma_task_memcpy *task, doca_data task_ud, doca_data ctx_ud);

    doca_dev *dev_;
    doca_pe *pe_ = nullptr;
    doca_dma *dma_ = nullptr;
    doca_buf_inventory *inv_ = nullptr;
    uint8_t *scratch_ = nullptr;
    doca_mmap *scratch_mmap_ = nullptr;

    doca_mmap *import_ = nullptr;
    const ExportRecord *imported_from_ = nullptr;
    bool import_failed_ = false; // a task met the revoked export: wait for a new record

    std::array<LocalArea, kMaxAreas> areas_{};
    size_t area_count_ = 0;
    uint64_t areas_generation_ = 0;

    // Filled by on_done for the one task in flight.
    bool done_ = false;
    doca_error_t status_ = DOCA_SUCCESS;
};

} // namespace skiff::dataplane::hostmem
