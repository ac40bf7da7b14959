#include "hostmem_dma_lane.hpp"

#include "skiff/core/log.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <doca_buf.h>
#include <doca_ctx.h>

#include <nvme/types.h>

#include <sched.h>
#include <sys/mman.h>

namespace skiff::dataplane::hostmem {
namespace {

constexpr uint16_t kInternal = nvmeof::wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL);
constexpr long kProgressLimit = 200000000L; // progress calls before a stuck engine is reported

} // namespace

DmaLane::~DmaLane() {
    drop_import();
    drop_local_areas();
    if (dma_) {
        doca_ctx *ctx = doca_dma_as_ctx(dma_);
        doca_ctx_states s{};
        doca_ctx_get_state(ctx, &s);
        if (s != DOCA_CTX_STATE_IDLE) {
            doca_ctx_stop(ctx);
            for (long i = 0; i < kProgressLimit && s != DOCA_CTX_STATE_IDLE; ++i) {
                doca_pe_progress(pe_);
                doca_ctx_get_state(ctx, &s);
            }
        }
        doca_dma_destroy(dma_);
    }
    if (pe_) doca_pe_destroy(pe_);
    if (inv_) doca_buf_inventory_destroy(inv_);
    if (scratch_mmap_) doca_mmap_destroy(scratch_mmap_);
    if (scratch_) munmap(scratch_, kScratchBytes);
}

Status DmaLane::start() {
    void *p = mmap(nullptr, kScratchBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return make_error(DOCA_ERROR_NO_MEMORY, "hostmem lane: cannot map scratch memory");
    scratch_ = static_cast<uint8_t *>(p);
    scratch_mmap_ = register_local(scratch_, kScratchBytes);
    if (!scratch_mmap_)
        return make_error(DOCA_ERROR_INITIALIZATION, "hostmem lane: cannot register scratch memory");
    if (auto st = check(doca_buf_inventory_create(8, &inv_), "doca_buf_inventory_create"); !st) return st;
    if (auto st = check(doca_buf_inventory_start(inv_), "doca_buf_inventory_start"); !st) return st;
    if (auto st = check(doca_pe_create(&pe_), "doca_pe_create"); !st) return st;
    if (auto st = check(doca_dma_create(dev_, &dma_), "doca_dma_create"); !st) return st;
    doca_ctx *ctx = doca_dma_as_ctx(dma_);
    doca_data ud{};
    ud.ptr = this;
    if (auto st = check(doca_ctx_set_user_data(ctx, ud), "doca_ctx_set_user_data"); !st) return st;
    if (auto st =
            check(doca_dma_task_memcpy_set_conf(dma_, on_done, on_done, 1), "doca_dma_task_memcpy_set_conf");
        !st)
        return st;
    if (auto st = check(doca_pe_connect_ctx(pe_, ctx), "doca_pe_connect_ctx"); !st) return st;
    return check(doca_ctx_start(ctx), "doca_ctx_start (hostmem DMA)");
}

uint16_t DmaLane::copy(const ExportRecord *record, uint64_t offset, uint8_t *local, size_t len,
                       bool to_host) {
    if (!ensure_import(record)) return kInaccessible;
    doca_mmap *local_mmap = local_mmap_for(local, len);
    if (!local_mmap) return kInternal;
    void *remote = reinterpret_cast<void *>(record->host_addr + offset);
    doca_buf *host_buf = nullptr, *local_buf = nullptr;
    if (doca_buf_inventory_buf_get_by_args(inv_, import_, remote, len, remote, to_host ? 0 : len,
                                           &host_buf) != DOCA_SUCCESS)
        return kInternal;
    if (doca_buf_inventory_buf_get_by_args(inv_, local_mmap, local, len, local, to_host ? len : 0,
                                           &local_buf) != DOCA_SUCCESS) {
        doca_buf_dec_refcount(host_buf, nullptr);
        return kInternal;
    }
    uint16_t st = to_host ? run_task(local_buf, host_buf) : run_task(host_buf, local_buf);
    doca_buf_dec_refcount(host_buf, nullptr);
    doca_buf_dec_refcount(local_buf, nullptr);
    return st;
}

// The import follows the published record: a new export replaces the old import; a task that
// met the revoked export keeps the lane inaccessible until a new record appears.
bool DmaLane::ensure_import(const ExportRecord *record) {
    if (record != imported_from_) {
        drop_import();
        import_failed_ = false;
        if (!record) return false;
        doca_error_t r = doca_mmap_create_from_export(nullptr, record->descriptor.data(),
                                                      record->descriptor.size(), dev_, &import_);
        if (r != DOCA_SUCCESS) {
            log::get("hostmem")->warn("cannot import host export {}: {}", record->generation,
                                      doca_error_get_descr(r));
            import_ = nullptr;
            import_failed_ = true;
        }
        imported_from_ = record;
    }
    return import_ != nullptr && !import_failed_;
}

void DmaLane::drop_import() {
    if (import_) doca_mmap_destroy(import_);
    import_ = nullptr;
    imported_from_ = nullptr;
}

// Looks the buffer up among the areas this lane registered; the first I/O in a new connection's
// area registers it (once). A removed area anywhere drops the cache: its mmap may cover memory
// that is gone.
doca_mmap *DmaLane::local_mmap_for(uint8_t *p, size_t len) {
    if (p >= scratch_ && p + len <= scratch_ + kScratchBytes) return scratch_mmap_;
    uint64_t gen = nvmeof::transport::buffer_areas::generation();
    if (gen != areas_generation_) {
        drop_local_areas();
        areas_generation_ = gen;
    }
    for (size_t i = 0; i < area_count_; ++i) {
        const auto &a = areas_[i].area;
        if (p >= a.base && p + len <= a.base + a.len) return areas_[i].mmap;
    }
    nvmeof::transport::BufferArea area;
    if (!nvmeof::transport::buffer_areas::find(p, len, area)) {
        log::get("hostmem")->error("I/O buffer {} is in no registered transport buffer area",
                                   static_cast<void *>(p));
        return nullptr;
    }
    if (area_count_ == kMaxAreas) drop_local_areas();
    doca_mmap *m = register_local(area.base, area.len);
    if (!m) return nullptr;
    areas_[area_count_++] = {area, m};
    return m;
}

void DmaLane::drop_local_areas() {
    for (size_t i = 0; i < area_count_; ++i) doca_mmap_destroy(areas_[i].mmap);
    area_count_ = 0;
}

doca_mmap *DmaLane::register_local(uint8_t *base, size_t len) {
    doca_mmap *m = nullptr;
    if (doca_mmap_create(&m) != DOCA_SUCCESS) return nullptr;
    if (doca_mmap_set_memrange(m, base, len) != DOCA_SUCCESS || doca_mmap_add_dev(m, dev_) != DOCA_SUCCESS ||
        doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
        doca_mmap_start(m) != DOCA_SUCCESS) {
        doca_mmap_destroy(m);
        return nullptr;
    }
    return m;
}

uint16_t DmaLane::run_task(doca_buf *src, doca_buf *dst) {
    doca_dma_task_memcpy *task = nullptr;
    doca_data ud{};
    if (doca_dma_task_memcpy_alloc_init(dma_, src, dst, ud, &task) != DOCA_SUCCESS) return kInternal;
    done_ = false;
    if (doca_task_submit(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS) {
        doca_task_free(doca_dma_task_memcpy_as_task(task));
        return kInternal;
    }
    // The backend interface is synchronous today: progress until the completion arrives.
    for (long i = 0; i < kProgressLimit && !done_; ++i)
        if (!doca_pe_progress(pe_)) sched_yield();
    if (!done_) {
        log::get("hostmem")->error("DMA task did not complete");
        return kInternal;
    }
    if (status_ == DOCA_SUCCESS) return 0;
    // A failed task stops the context, as a hardware completion error does: restart it.
    restart_after_failure();
    if (status_ == DOCA_ERROR_NOT_CONNECTED) {
        log::get("hostmem")->warn("host memory export revoked or host gone: namespace inaccessible");
        import_failed_ = true;
        return kInaccessible;
    }
    log::get("hostmem")->error("DMA task failed: {}", doca_error_get_descr(status_));
    return kInternal;
}

void DmaLane::restart_after_failure() {
    doca_ctx *ctx = doca_dma_as_ctx(dma_);
    doca_ctx_states s{};
    doca_ctx_get_state(ctx, &s);
    for (long i = 0; i < kProgressLimit && s != DOCA_CTX_STATE_IDLE; ++i) {
        if (!doca_pe_progress(pe_)) sched_yield();
        doca_ctx_get_state(ctx, &s);
    }
    if (doca_ctx_start(ctx) != DOCA_SUCCESS) log::get("hostmem")->error("cannot restart the DMA context");
}

void DmaLane::on_done(doca_dma_task_memcpy *task, doca_data, doca_data ctx_ud) {
    auto *lane = static_cast<DmaLane *>(ctx_ud.ptr);
    doca_task *t = doca_dma_task_memcpy_as_task(task);
    lane->status_ = doca_task_get_status(t);
    lane->done_ = true;
    doca_task_free(t);
}

} // namespace skiff::dataplane::hostmem
