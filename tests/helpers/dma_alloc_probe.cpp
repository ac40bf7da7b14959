// Counts heap allocations on the DMA data path (spec 5.1 rule 2, spec 5.5): after the ctx has
// started, a hot loop of memcpy alloc_init / submit / progress / callback / free, of resubmitting a
// kept task with new buffers, and of notification arm / clear must allocate nothing, in any thread
// (the engine's worker included). Counts every allocation of this process (counting_allocator.hpp). Prints
// "data_path <allocations> tasks <completed>" and exits 0 when nothing was allocated, 1 otherwise.
// Under AddressSanitizer it counts through the sanitizer's malloc hooks (counting_allocator.hpp).
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "counting_allocator.hpp"

namespace {

constexpr size_t kSlot = 4096;
constexpr int kRounds = 5000;
uint8_t memory[1 << 20];
long completed = 0;
doca_dma_task_memcpy *kept = nullptr;

bool ok(doca_error_t r, const char *what) {
    if (r == DOCA_SUCCESS) return true;
    std::printf("error %s %s\n", what, doca_error_get_name(r));
    return false;
}

void on_done(doca_dma_task_memcpy *task, doca_data, doca_data) {
    ++completed;
    if (task == kept) return; // kept for reuse
    doca_task_free(doca_dma_task_memcpy_as_task(task));
}

doca_dev *open_memcpy_device() {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    doca_dev *dev = nullptr;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return nullptr;
    for (uint32_t i = 0; i < n && !dev; ++i)
        if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS) doca_dev_open(list[i], &dev);
    doca_devinfo_destroy_list(list);
    return dev;
}

} // namespace

int main() {
    // Setup: allocation is allowed here.
    doca_dev *dev = open_memcpy_device();
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    doca_pe *pe = nullptr;
    doca_dma *dma = nullptr;
    if (!dev || !ok(doca_mmap_create(&mmap), "mmap_create") ||
        !ok(doca_mmap_set_memrange(mmap, memory, sizeof(memory)), "memrange") ||
        !ok(doca_mmap_add_dev(mmap, dev), "add_dev") || !ok(doca_mmap_start(mmap), "mmap_start") ||
        !ok(doca_buf_inventory_create(16, &inv), "inv_create") ||
        !ok(doca_buf_inventory_start(inv), "inv_start") || !ok(doca_pe_create(&pe), "pe_create") ||
        !ok(doca_dma_create(dev, &dma), "dma_create") ||
        !ok(doca_dma_task_memcpy_set_conf(dma, on_done, on_done, 8), "set_conf") ||
        !ok(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)), "connect") ||
        !ok(doca_ctx_start(doca_dma_as_ctx(dma)), "start"))
        return 2;
    while (doca_pe_progress(pe)) {
    }
    doca_buf *src = nullptr, *dst = nullptr, *dst2 = nullptr;
    if (!ok(doca_buf_inventory_buf_get_by_data(inv, mmap, memory, kSlot, &src), "src") ||
        !ok(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory + kSlot, kSlot, &dst), "dst") ||
        !ok(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory + 2 * kSlot, kSlot, &dst2), "dst2") ||
        !ok(doca_dma_task_memcpy_alloc_init(dma, src, dst2, {}, &kept), "kept task"))
        return 2;
    doca_notification_handle_t fd = -1;
    doca_pe_get_notification_handle(pe, &fd);
#ifdef SKIFF_PROBE_UNDER_ASAN
    // The threaded engine's worker starts with the ctx, but it may first get a core inside the
    // window; AddressSanitizer then sets the new thread up (pthread_getattr_np, which allocates
    // through malloc) before the thread runs any of our code, and the hooks would count that. One
    // copy completed by the engine before the window puts the worker past that setup. Only under
    // ASan: elsewhere thread start allocates nothing, and the window includes the first copy.
    if (!ok(doca_task_try_submit(doca_dma_task_memcpy_as_task(kept)), "warm-up")) return 2;
    while (completed < 1) doca_pe_progress(pe);
    completed = 0;
#endif

    long before = allocations.load();
    for (int round = 0; round < kRounds; ++round) {
        // A fresh task each round, freed in its callback.
        doca_dma_task_memcpy *task = nullptr;
        doca_buf_reset_data_len(dst);
        if (!ok(doca_dma_task_memcpy_alloc_init(dma, src, dst, {}, &task), "alloc_init") ||
            !ok(doca_task_submit(doca_dma_task_memcpy_as_task(task)), "submit"))
            return 2;
        // The kept task, retargeted and resubmitted (validated submit).
        doca_buf_reset_data_len(dst2);
        doca_dma_task_memcpy_set_dst(kept, dst2);
        if (!ok(doca_task_try_submit(doca_dma_task_memcpy_as_task(kept)), "try_submit")) return 2;
        if (round % 64 == 0) doca_pe_request_notification(pe);
        long target = completed + 2;
        while (completed < target) doca_pe_progress(pe);
        if (round % 64 == 0) doca_pe_clear_notification(pe, fd);
    }
    long data_path = allocations.load() - before;
    bool bytes_ok = std::memcmp(memory + kSlot, memory, kSlot) == 0;

    std::printf("data_path %ld tasks %ld\n", data_path, completed);
    doca_task_free(doca_dma_task_memcpy_as_task(kept));
    doca_ctx_stop(doca_dma_as_ctx(dma));
    while (doca_pe_progress(pe)) {
    }
    doca_buf_dec_refcount(src, nullptr);
    doca_buf_dec_refcount(dst, nullptr);
    doca_buf_dec_refcount(dst2, nullptr);
    doca_dma_destroy(dma);
    doca_pe_destroy(pe);
    doca_buf_inventory_destroy(inv);
    doca_mmap_destroy(mmap);
    doca_dev_close(dev);
    return data_path == 0 && bytes_ok ? 0 : 1;
}
