// DPA memory: the heap of the emulated DPA process (ordinary process memory, so a dev_ptr is a
// plain address device code can dereference), host <-> heap copies, and the DPA handles of mmaps.
#include "dev/device.hpp"
#include "dpa/dpa_context.hpp"

#include "mem/buf.hpp"
#include "mem/dpa_mmap_handles.hpp"
#include "mem/mmap.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using skiff::core::dpa::check_usable;
using skiff::core::dpa::dpa_logger;

bool doca_dpa::heap_contains(uintptr_t ptr, size_t len) {
    doca_dpa &r = root();
    std::lock_guard lock(r.heap_mu);
    auto it = r.heap.upper_bound(ptr);
    if (it == r.heap.begin()) return false;
    --it;
    return ptr >= it->first && len <= it->second && ptr - it->first <= it->second - len;
}

namespace {

// Checks [dev_ptr, dev_ptr + size) against the heap; logs what is wrong.
doca_error_t check_range(doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr, size_t size, const char *api) {
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    if (size == 0 || !dpa->heap_contains(dev_ptr, size)) {
        dpa_logger().error("{}: [{:#x}, +{}) is not inside one DPA heap allocation of this context", api,
                           dev_ptr, size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    return DOCA_SUCCESS;
}

void *ptr_of(doca_dpa_dev_uintptr_t p) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}

} // namespace

extern "C" {

doca_error_t doca_dpa_mem_alloc(doca_dpa *dpa, size_t size, doca_dpa_dev_uintptr_t *dev_ptr) {
    if (!dev_ptr || size == 0) return DOCA_ERROR_INVALID_VALUE;
    *dev_ptr = 0;
    if (auto r = check_usable(dpa); r != DOCA_SUCCESS) return r;
    if (!dpa->started) return DOCA_ERROR_BAD_STATE;
    // Aligned for any type, as DOCA promises; rounded up so aligned_alloc accepts the size.
    void *p = std::aligned_alloc(64, (size + 63) / 64 * 64);
    if (!p) return DOCA_ERROR_NO_MEMORY;
    doca_dpa &r = dpa->root();
    std::lock_guard lock(r.heap_mu);
    r.heap.emplace(reinterpret_cast<uintptr_t>(p), size);
    *dev_ptr = reinterpret_cast<uintptr_t>(p);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_mem_free(doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr) {
    if (!dpa) return DOCA_ERROR_INVALID_VALUE;
    doca_dpa &r = dpa->root();
    std::lock_guard lock(r.heap_mu);
    auto it = r.heap.find(dev_ptr);
    if (it == r.heap.end()) {
        dpa_logger().error("doca_dpa_mem_free: {:#x} is not a live allocation of this DPA context", dev_ptr);
        return DOCA_ERROR_INVALID_VALUE;
    }
    std::free(ptr_of(dev_ptr));
    r.heap.erase(it);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_h2d_memcpy(doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, void *src_ptr, size_t size) {
    if (!src_ptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_range(dpa, dst_ptr, size, "doca_dpa_h2d_memcpy"); r != DOCA_SUCCESS) return r;
    std::memcpy(ptr_of(dst_ptr), src_ptr, size);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_d2h_memcpy(doca_dpa *dpa, void *dst_ptr, doca_dpa_dev_uintptr_t src_ptr, size_t size) {
    if (!dst_ptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_range(dpa, src_ptr, size, "doca_dpa_d2h_memcpy"); r != DOCA_SUCCESS) return r;
    std::memcpy(dst_ptr, ptr_of(src_ptr), size);
    return DOCA_SUCCESS;
}

doca_error_t doca_dpa_h2d_buf_memcpy(doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr, doca_buf *buf,
                                     size_t size) {
    if (!buf || !buf->data || size > buf->data_len) return DOCA_ERROR_INVALID_VALUE;
    return doca_dpa_h2d_memcpy(dpa, dst_ptr, buf->data, size);
}

doca_error_t doca_dpa_d2h_buf_memcpy(doca_dpa *dpa, doca_buf *buf, doca_dpa_dev_uintptr_t src_ptr,
                                     size_t size) {
    if (!buf || !buf->data) return DOCA_ERROR_INVALID_VALUE;
    if (size > static_cast<size_t>(buf->head + buf->len - buf->data)) return DOCA_ERROR_INVALID_VALUE;
    return doca_dpa_d2h_memcpy(dpa, buf->data, src_ptr, size);
}

doca_error_t doca_dpa_memset(doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr, int value, size_t size) {
    if (auto r = check_range(dpa, dev_ptr, size, "doca_dpa_memset"); r != DOCA_SUCCESS) return r;
    std::memset(ptr_of(dev_ptr), value, size);
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dpa_memrange(doca_mmap *mmap, doca_dpa *dpa, uint64_t addr, size_t len) {
    if (!mmap) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = check_range(dpa, addr, len, "doca_mmap_set_dpa_memrange"); r != DOCA_SUCCESS) return r;
    if (mmap->started || mmap->from_export) return DOCA_ERROR_BAD_STATE;
    if (mmap->range_set) return DOCA_ERROR_NOT_PERMITTED; // doca_mmap.h: set once
    mmap->addr = static_cast<uint8_t *>(ptr_of(addr));
    mmap->len = len;
    mmap->range_set = true;
    mmap->dpa_range = true;
    // The memory belongs to the DPA context's device (an extended context's own: the SF whose RDMA
    // exports it), which DOCA makes the mmap's device: no doca_mmap_add_dev is allowed, and
    // doca_mmap_export_rdma / doca_mmap_dev_get_dpa_handle name that device.
    if (std::find(mmap->devs.begin(), mmap->devs.end(), dpa->dev) == mmap->devs.end()) {
        mmap->devs.push_back(dpa->dev);
        skiff::core::dev::dev_hold(dpa->dev);
    }
    return DOCA_SUCCESS;
}

doca_error_t doca_mmap_dev_get_dpa_handle(doca_mmap *mmap, doca_dev *dev,
                                          doca_dpa_dev_mmap_t *dpa_mmap_handle) {
    if (!mmap || !dev || !dpa_mmap_handle) return DOCA_ERROR_INVALID_VALUE;
    if (!mmap->started) {
        dpa_logger().error("doca_mmap_dev_get_dpa_handle: start the mmap first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (mmap->from_export && !mmap->rdma_remote) {
        // The emulated DPA reaches memory by address; an imported range lives in another process.
        // An RDMA import is the exception: DPA RDMA posts reach it through its rkey.
        dpa_logger().error(
            "doca_mmap_dev_get_dpa_handle: mmaps created from an export are not reachable by the "
            "emulated DPA");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *dpa_mmap_handle = skiff::core::mem::dpa_mmap_handle(mmap);
    return *dpa_mmap_handle != 0 ? DOCA_SUCCESS : DOCA_ERROR_NO_MEMORY;
}

} // extern "C"
