#include "hostmem_channel.hpp"

#include "skiff/core/log.hpp"

#include <doca_buf.h>
#include <doca_ctx.h>

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

namespace skiff::dataplane::hostmem {
namespace {

using nvmeof::target::BackendIo;
using nvmeof::target::IoOp;
namespace wire = nvmeof::wire;

constexpr uint16_t kInternal = wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL);
constexpr uint32_t kCompareBuffers = 4;      // Compares in flight at once per channel
constexpr uint32_t kZeroBufferLen = 1 << 20; // the source of Write Zeroes and Deallocate
constexpr long kProgressLimit = 200000000L;  // progress calls before a stuck stop is reported

std::shared_ptr<spdlog::logger> logger() {
    static auto l = log::get("hostmem");
    return l;
}

} // namespace

HostmemChannel::HostmemChannel(HostmemDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth,
                               uint32_t max_io_bytes)
    : dev_(dev), ctx_(ctx), depth_(depth), max_io_(max_io_bytes) {}

Status HostmemChannel::start() {
    doca_pe *pe = ctx_.progress_engine();
    if (!pe)
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "hostmem backend: this queue has no poll group progress engine to complete DMA in");
    uint32_t bounces = std::min(depth_, kCompareBuffers);
    buffers_len_ = static_cast<size_t>(bounces) * max_io_ + kZeroBufferLen;
    void *p = mmap(nullptr, buffers_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return make_error(DOCA_ERROR_NO_MEMORY, "hostmem backend: cannot map bounce buffers");
    buffers_ = static_cast<uint8_t *>(p);
    for (uint32_t i = 0; i < bounces; ++i)
        free_bounce_.push_back(buffers_ + static_cast<size_t>(i) * max_io_);
    free_bounce_count_ = bounces;
    zero_buf_ = buffers_ + static_cast<size_t>(bounces) * max_io_;
    buffers_mmap_ = register_local(buffers_, buffers_len_);
    if (!buffers_mmap_)
        return make_error(DOCA_ERROR_INITIALIZATION, "hostmem backend: cannot register the bounce buffers");
    slots_.resize(depth_);
    for (auto &s : slots_) free_slots_.push_back(&s);
    free_slot_count_ = depth_;

    if (auto st = check(doca_buf_inventory_create(2 * depth_, &inv_), "doca_buf_inventory_create"); !st)
        return st;
    if (auto st = check(doca_buf_inventory_start(inv_), "doca_buf_inventory_start"); !st) return st;
    if (auto st = check(doca_dma_create(dev_.doca_device(), &dma_), "doca_dma_create"); !st) return st;
    doca_ctx *ctx = doca_dma_as_ctx(dma_);
    doca_data ud{};
    ud.ptr = this;
    if (auto st = check(doca_ctx_set_user_data(ctx, ud), "doca_ctx_set_user_data"); !st) return st;
    // One task per slot: the pool never runs dry.
    if (auto st = check(doca_dma_task_memcpy_set_conf(dma_, on_done, on_done, depth_),
                        "doca_dma_task_memcpy_set_conf");
        !st)
        return st;
    if (auto st = check(doca_pe_connect_ctx(pe, ctx), "doca_pe_connect_ctx"); !st) return st;
    if (auto st = check(doca_ctx_start(ctx), "doca_ctx_start (hostmem DMA)"); !st) return st;
    running_ = true;
    return Status::success();
}

// Runs on the group thread once in_flight() == 0 (block_device.hpp): no task is outstanding.
HostmemChannel::~HostmemChannel() {
    for (auto &slot : slots_) free_task(slot);
    drop_import();
    drop_local_areas();
    release_local_bufs(); // those on the bounce buffers
    if (dma_) {
        doca_ctx *ctx = doca_dma_as_ctx(dma_);
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        if (s == DOCA_CTX_STATE_RUNNING) doca_ctx_stop(ctx);
        doca_ctx_get_state(ctx, &s);
        for (long i = 0; i < kProgressLimit && s != DOCA_CTX_STATE_IDLE; ++i) {
            doca_pe_progress(ctx_.progress_engine());
            doca_ctx_get_state(ctx, &s);
        }
        doca_dma_destroy(dma_);
    }
    if (inv_) doca_buf_inventory_destroy(inv_);
    if (buffers_mmap_) doca_mmap_destroy(buffers_mmap_);
    if (buffers_) munmap(buffers_, buffers_len_);
}

void HostmemChannel::submit(BackendIo &io) {
    ++in_flight_;
    if (io.op == IoOp::kFlush) return finish(io, 0); // host memory: a completed write is there
    if (io.offset > dev_.size_bytes() || io.len > dev_.size_bytes() - io.offset)
        return finish(io, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true));
    if (io.len == 0) return finish(io, 0);
    // Keep order: nothing overtakes what already waits.
    if (waiting_.empty() && start_io(io)) return;
    waiting_.push_back(io);
}

// After a failed task the context stops (as on hardware) and goes IDLE once its tasks are back;
// the next I/O starts it again.
bool HostmemChannel::restart() {
    doca_ctx *ctx = doca_dma_as_ctx(dma_);
    doca_ctx_states s{};
    doca_ctx_get_state(ctx, &s);
    if (s != DOCA_CTX_STATE_IDLE) return false; // still stopping: its tasks are coming back
    if (doca_ctx_start(ctx) != DOCA_SUCCESS) {
        logger()->error("hostmem backend: cannot restart the DMA context");
        return false;
    }
    running_ = true;
    return true;
}

bool HostmemChannel::start_io(BackendIo &io) {
    if (free_slot_count_ == 0 || (io.op == IoOp::kCompare && free_bounce_count_ == 0)) return false;
    const ExportRecord *record = dev_.current_export();
    bool usable = false;
    if (!import_ready(record, usable)) return false; // wait for the old import's tasks
    if (!usable) {
        finish(io, kInaccessible);
        return true;
    }
    uint64_t gen = nvmeof::transport::buffer_areas::generation();
    if (gen != areas_generation_) {
        if (dma_tasks_) return false; // an area went away: re-register once nothing uses them
        drop_local_areas();
        areas_generation_ = gen;
    }
    if (!ensure_running()) {
        // Still stopping after a failure: a retryable error, as a path that is coming back.
        finish(io, dev_.accessible() ? wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false)
                                     : kInaccessible);
        return true;
    }
    Slot &s = *free_slots_[--free_slot_count_];
    s.io = &io;
    s.done = 0;
    if (io.op == IoOp::kCompare) {
        s.bounce = free_bounce_[--free_bounce_count_];
    }
    if (uint16_t st = start_chunk(s)) {
        release(s);
        finish(io, st);
    }
    return true;
}

// Submits the slot's next DMA task: host -> request buffer (Read), request buffer -> host
// (Write), host -> bounce (Compare), zero buffer -> host (Write Zeroes, Deallocate).
uint16_t HostmemChannel::start_chunk(Slot &s) {
    BackendIo &io = *s.io;
    uint64_t left = io.len - s.done;
    bool to_host = io.op == IoOp::kWrite || io.op == IoOp::kWriteZeroes || io.op == IoOp::kDeallocate;
    uint8_t *local;
    switch (io.op) {
    case IoOp::kRead:
    case IoOp::kWrite:
        s.chunk = left;
        local = static_cast<uint8_t *>(io.buf) + s.done;
        break;
    case IoOp::kCompare:
        s.chunk = std::min<uint64_t>(left, max_io_);
        local = s.bounce;
        break;
    default:
        s.chunk = std::min<uint64_t>(left, kZeroBufferLen);
        local = zero_buf_;
        break;
    }
    if (!bufs_ready(s, local, s.chunk)) return kInternal;
    auto *remote = reinterpret_cast<uint8_t *>(imported_from_->host_addr + io.offset + s.done);
    size_t n = s.chunk;
    // The source's data region is the bytes to copy; the destination's is empty, the copy lands
    // in its tailroom.
    if (doca_buf_set_data(s.host_buf, remote, to_host ? 0 : n) != DOCA_SUCCESS ||
        doca_buf_set_data(s.local_buf, local, to_host ? n : 0) != DOCA_SUCCESS)
        return kInternal;
    doca_buf *src = to_host ? s.local_buf : s.host_buf, *dst = to_host ? s.host_buf : s.local_buf;
    if (s.task) {
        doca_dma_task_memcpy_set_src(s.task, src);
        doca_dma_task_memcpy_set_dst(s.task, dst);
    } else {
        doca_data ud{};
        ud.ptr = &s;
        if (doca_dma_task_memcpy_alloc_init(dma_, src, dst, ud, &s.task) != DOCA_SUCCESS) {
            s.task = nullptr;
            return kInternal;
        }
    }
    if (doca_task_submit(doca_dma_task_memcpy_as_task(s.task)) != DOCA_SUCCESS) {
        free_task(s);
        return kInternal;
    }
    ++dma_tasks_;
    ctx_.count_dma_task(n);
    return 0;
}

// The slot's bufs do not cover the import and `local` yet (bufs_ready checked the buffer area the
// slot met last: most I/O of a connection lands there): find the area and attach.
bool HostmemChannel::find_bufs(Slot &s, uint8_t *local, size_t len) {
    LocalRange range;
    return local_range_for(local, len, range) && attach_bufs(s, range);
}

// The slot's bufs: one over the whole import (made once per import), one over the local range
// (made again only when the slot meets another range: another connection's buffer area).
bool HostmemChannel::attach_bufs(Slot &s, const LocalRange &local) {
    if (!s.host_buf) {
        // The import's own range: what the exporter really granted, whatever the record says.
        void *base = nullptr;
        size_t len = 0;
        if (doca_mmap_get_memrange(import_, &base, &len) != DOCA_SUCCESS ||
            doca_buf_inventory_buf_get_by_args(inv_, import_, base, len, base, 0, &s.host_buf) !=
                DOCA_SUCCESS) {
            s.host_buf = nullptr;
            return false;
        }
    }
    if (s.local_mmap == local.mmap) return true;
    if (s.local_buf) doca_buf_dec_refcount(s.local_buf, nullptr);
    s.local_buf = nullptr;
    s.local_mmap = nullptr;
    if (doca_buf_inventory_buf_get_by_args(inv_, local.mmap, local.base, local.len, local.base, 0,
                                           &s.local_buf) != DOCA_SUCCESS) {
        s.local_buf = nullptr;
        return false;
    }
    s.local_mmap = local.mmap;
    s.local_base = local.base;
    s.local_len = local.len;
    return true;
}

// Inside the group's doca_pe_progress.
void HostmemChannel::on_done(doca_dma_task_memcpy *task, doca_data task_ud, doca_data ctx_ud) {
    auto *self = static_cast<HostmemChannel *>(ctx_ud.ptr);
    auto &s = *static_cast<Slot *>(task_ud.ptr);
    doca_error_t result = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
    --self->dma_tasks_;
    BackendIo &io = *s.io;
    if (result == DOCA_SUCCESS && self->running_ && io.op != IoOp::kCompare && s.done + s.chunk == io.len) {
        // The usual completion: a Read or Write (or the last chunk of a zeroing) moved its bytes.
        self->release(s);
        self->finish(io, 0);
    } else {
        // A failed task stops the ctx (as on hardware), which reaches IDLE, and can start again,
        // only once every task is freed: the slots give theirs back until it runs again.
        if (result != DOCA_SUCCESS) {
            self->running_ = false;
            self->free_task(s);
            self->free_idle_tasks();
        } else if (!self->running_) {
            self->free_task(s);
        }
        self->chunk_done(s, result);
    }
    if (!self->waiting_.empty()) self->start_waiting();
}

void HostmemChannel::chunk_done(Slot &s, doca_error_t result) {
    BackendIo &io = *s.io;
    uint16_t st = 0;
    if (result == DOCA_ERROR_NOT_CONNECTED || (result == DOCA_ERROR_SHUTDOWN && !dev_.accessible())) {
        if (result == DOCA_ERROR_NOT_CONNECTED) {
            logger()->warn(
                "hostmem backend: host memory export revoked or host gone: namespace inaccessible");
            dev_.mark_lost(imported_from_);
        }
        st = kInaccessible;
    } else if (result != DOCA_SUCCESS) {
        // SHUTDOWN: flushed behind another task's failure; retryable.
        if (result != DOCA_ERROR_SHUTDOWN)
            logger()->error("hostmem backend: DMA task failed: {}", doca_error_get_descr(result));
        st = wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false);
    } else if (io.op == IoOp::kCompare &&
               std::memcmp(s.bounce, static_cast<const uint8_t *>(io.buf) + s.done, s.chunk) != 0) {
        st = wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
    } else {
        s.done += s.chunk;
        if (s.done < io.len) {
            if (!ensure_running())
                st = kInternal;
            else
                st = start_chunk(s);
            if (st == 0) return; // the next chunk is under way
        }
    }
    release(s);
    finish(io, st);
}

void HostmemChannel::release(Slot &s) {
    if (s.bounce) free_bounce_[free_bounce_count_++] = s.bounce;
    s.bounce = nullptr;
    s.io = nullptr;
    free_slots_[free_slot_count_++] = &s;
}

void HostmemChannel::finish(BackendIo &io, uint16_t status) {
    --in_flight_;
    io.done(io, status);
}

void HostmemChannel::start_waiting() {
    while (BackendIo *io = waiting_.pop_front()) {
        if (!start_io(*io)) {
            waiting_.push_front(*io); // still no room
            return;
        }
    }
}

// The import follows the published record. A new record replaces the import once no task uses
// the old one; `usable` says whether DMA can go to the current record at all.
bool HostmemChannel::replace_import(const ExportRecord *record, bool &usable) {
    if (dma_tasks_) return false;
    drop_import();
    import_failed_ = false;
    imported_from_ = record;
    if (record) {
        doca_error_t r = doca_mmap_create_from_export(
            nullptr, record->descriptor.data(), record->descriptor.size(), dev_.doca_device(), &import_);
        if (r != DOCA_SUCCESS) {
            logger()->warn("hostmem backend: cannot import host export {}: {}", record->generation,
                           doca_error_get_descr(r));
            import_ = nullptr;
            import_failed_ = true;
        }
    }
    usable = import_usable();
    return true;
}

// No task is in flight (or the channel is closing).
void HostmemChannel::drop_import() {
    release_host_bufs();
    if (import_) doca_mmap_destroy(import_);
    import_ = nullptr;
    imported_from_ = nullptr;
}

// Looks the buffer up among the areas this channel registered; the first I/O in a new
// connection's area registers it (once).
bool HostmemChannel::local_range_for(uint8_t *p, size_t len, LocalRange &out) {
    if (p >= buffers_ && p + len <= buffers_ + buffers_len_) {
        out = {buffers_, buffers_len_, buffers_mmap_};
        return true;
    }
    for (size_t i = 0; i < area_count_; ++i) {
        const auto &a = areas_[i].area;
        if (p >= a.base && p + len <= a.base + a.len) {
            out = {a.base, a.len, areas_[i].mmap};
            return true;
        }
    }
    nvmeof::transport::BufferArea area;
    if (!nvmeof::transport::buffer_areas::find(p, len, area)) {
        logger()->error("hostmem backend: I/O buffer {} is in no registered transport buffer area",
                        static_cast<void *>(p));
        return false;
    }
    if (area_count_ == kMaxAreas) {
        if (dma_tasks_) return false; // every area busy: rare (64 connections on one group)
        drop_local_areas();
    }
    doca_mmap *m = register_local(area.base, area.len);
    if (!m) return false;
    areas_[area_count_++] = {area, m};
    out = {area.base, area.len, m};
    return true;
}

void HostmemChannel::release_host_bufs() {
    for (auto &s : slots_) {
        if (s.host_buf) doca_buf_dec_refcount(s.host_buf, nullptr);
        s.host_buf = nullptr;
    }
}

void HostmemChannel::release_local_bufs() {
    for (auto &s : slots_) {
        if (s.local_buf) doca_buf_dec_refcount(s.local_buf, nullptr);
        s.local_buf = nullptr;
        s.local_mmap = nullptr;
        s.local_base = nullptr;
        s.local_len = 0;
    }
}

void HostmemChannel::free_task(Slot &s) {
    if (s.task) doca_task_free(doca_dma_task_memcpy_as_task(s.task));
    s.task = nullptr;
}

// The tasks of the slots no I/O holds (the others come back through on_done).
void HostmemChannel::free_idle_tasks() {
    for (uint32_t i = 0; i < free_slot_count_; ++i) free_task(*free_slots_[i]);
}

void HostmemChannel::drop_local_areas() {
    if (area_count_ != 0) release_local_bufs();
    for (size_t i = 0; i < area_count_; ++i) doca_mmap_destroy(areas_[i].mmap);
    area_count_ = 0;
}

doca_mmap *HostmemChannel::register_local(uint8_t *base, size_t len) {
    doca_mmap *m = nullptr;
    if (doca_mmap_create(&m) != DOCA_SUCCESS) return nullptr;
    if (doca_mmap_set_memrange(m, base, len) != DOCA_SUCCESS ||
        doca_mmap_add_dev(m, dev_.doca_device()) != DOCA_SUCCESS ||
        doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
        doca_mmap_start(m) != DOCA_SUCCESS) {
        doca_mmap_destroy(m);
        return nullptr;
    }
    return m;
}

} // namespace skiff::dataplane::hostmem
