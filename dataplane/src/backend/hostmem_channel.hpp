// Internal: one poll group's channel to a HostmemDevice. Opened on the group's thread, it owns
// a doca_dma context connected to the group's progress engine (task completions run inside the
// group's loop), a buf inventory, the import of the host's export, one local doca_mmap per
// transport buffer area it has met (DMA lands straight in the request's buffer), and registered
// bounce buffers for Compare plus a zero buffer for Write Zeroes. Everything is allocated when
// the channel opens: submit() and the completion path allocate nothing and take no lock. I/O that
// finds every slot taken (or must wait for the import or the areas to be replaced) waits in an
// intrusive list.
#pragma once

#include "skiff/dataplane/hostmem_device.hpp"
#include "io_wait_list.hpp"
#include "skiff/nvmeof/target/poll_context.hpp"
#include "skiff/nvmeof/transport/buffer_areas.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <doca_buf_inventory.h>
#include <doca_dma.h>
#include <doca_mmap.h>

#include <nvme/types.h>

#include <array>
#include <cstdint>
#include <vector>

namespace skiff::dataplane::hostmem {

class HostmemChannel final : public nvmeof::target::IoChannel {
  public:
    // The status of I/O while the host's export is gone: ANA Inaccessible (SCT 3h, SC 02h).
    static constexpr uint16_t kInaccessible =
        nvmeof::wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);

    HostmemChannel(HostmemDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth,
                   uint32_t max_io_bytes);
    ~HostmemChannel() override;
    HostmemChannel(const HostmemChannel &) = delete;
    HostmemChannel &operator=(const HostmemChannel &) = delete;

    Status start();

    void submit(nvmeof::target::BackendIo &io) override;
    uint32_t in_flight() const override { return in_flight_; }

  private:
    // One I/O under way: its DMA chunks run one after the other (Write Zeroes and long Compares
    // take several; Read and Write one). The slot keeps its DMA task and its two bufs from one I/O
    // to the next (DOCA lets a completed task be resubmitted and a buf's data region be moved), so
    // an I/O costs two doca_buf_set_data and a submit: no inventory, no task pool on the data path.
    struct Slot {
        nvmeof::target::BackendIo *io = nullptr;
        uint8_t *bounce = nullptr;            // Compare: the stored bytes land here
        uint64_t done = 0;                    // bytes finished
        uint64_t chunk = 0;                   // bytes of the task under way
        doca_dma_task_memcpy *task = nullptr; // allocated while the ctx runs; freed when it stops
        doca_buf *host_buf = nullptr;         // the whole import; data region set per task
        doca_buf *local_buf = nullptr;        // the whole local range local_mmap; likewise
        doca_mmap *local_mmap = nullptr;
        uint8_t *local_base = nullptr; // local_buf's range: a Read or Write inside it skips the lookup
        size_t local_len = 0;
    };
    struct LocalArea {
        nvmeof::transport::BufferArea area;
        doca_mmap *mmap = nullptr;
    };
    // A registered local range an I/O buffer lies in.
    struct LocalRange {
        uint8_t *base = nullptr;
        size_t len = 0;
        doca_mmap *mmap = nullptr;
    };
    static constexpr size_t kMaxAreas = 64;

    // Starts io, or returns false when it must wait.
    bool start_io(nvmeof::target::BackendIo &io);
    uint16_t start_chunk(Slot &s);
    void chunk_done(Slot &s, doca_error_t result);
    void release(Slot &s);
    void finish(nvmeof::target::BackendIo &io, uint16_t status);
    void start_waiting();
    // The checks every I/O makes are inline and the work behind them out of line, so the usual
    // I/O (import current, ctx running, buffer area known) costs a few loads, not a call each.
    bool ensure_running() { return running_ || restart(); }
    bool restart();
    // false: the import must change but DMA is still in flight on the old one.
    bool import_ready(const ExportRecord *record, bool &usable) {
        if (record != imported_from_) return replace_import(record, usable);
        usable = import_usable();
        return true;
    }
    // DMA can go to the current import: it was made and the host's memory is reachable.
    bool import_usable() const { return import_ != nullptr && !import_failed_ && dev_.accessible(); }
    bool replace_import(const ExportRecord *record, bool &usable);
    void drop_import();
    bool local_range_for(uint8_t *p, size_t len, LocalRange &out);
    bool attach_bufs(Slot &s, const LocalRange &local);
    bool bufs_ready(Slot &s, uint8_t *local, size_t len) {
        return (s.host_buf && s.local_buf && local >= s.local_base && len <= s.local_len &&
                static_cast<size_t>(local - s.local_base) <= s.local_len - len) ||
               find_bufs(s, local, len);
    }
    bool find_bufs(Slot &s, uint8_t *local, size_t len);
    void release_host_bufs();
    void release_local_bufs();
    void free_task(Slot &s);
    void free_idle_tasks();

    void drop_local_areas();
    doca_mmap *register_local(uint8_t *base, size_t len);
    static void on_done(doca_dma_task_memcpy *task, doca_data task_ud, doca_data ctx_ud);

    HostmemDevice &dev_;
    nvmeof::target::PollContext &ctx_;
    uint32_t depth_;
    uint32_t max_io_;
    doca_dma *dma_ = nullptr;
    doca_buf_inventory *inv_ = nullptr;
    uint8_t *buffers_ = nullptr; // bounce buffers, then the zero buffer
    size_t buffers_len_ = 0;
    doca_mmap *buffers_mmap_ = nullptr;
    uint8_t *zero_buf_ = nullptr;
    std::vector<Slot> slots_;
    // Stacks of what no I/O holds, sized at start (a release is a store, never an allocation).
    std::vector<Slot *> free_slots_;
    uint32_t free_slot_count_ = 0;
    std::vector<uint8_t *> free_bounce_;
    uint32_t free_bounce_count_ = 0;
    uint32_t in_flight_ = 0; // I/O whose done has not run
    uint32_t dma_tasks_ = 0; // tasks submitted, not yet completed
    // The DMA ctx runs: set when a start succeeds, cleared by the first failed completion (only a
    // failed task stops it, as on hardware, and the channel sees every completion). Saves a
    // doca_ctx_get_state per I/O and per completion.
    bool running_ = false;
    IoWaitList waiting_;

    doca_mmap *import_ = nullptr;
    const ExportRecord *imported_from_ = nullptr;
    bool import_failed_ = false; // the import could not be made: wait for a new record

    std::array<LocalArea, kMaxAreas> areas_{};
    size_t area_count_ = 0;
    uint64_t areas_generation_ = 0;
};

} // namespace skiff::dataplane::hostmem
