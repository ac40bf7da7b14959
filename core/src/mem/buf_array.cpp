// doca_buf_arr: fixed-size elements of one mmap for the DPA or a GPU.
#include <doca_buf_array.h>

#include "mem/buf_array.hpp"
#include "mem/dpa_mmap_handles.hpp"
#include "mem/live_handles.hpp"
#include "mem/mmap.hpp"

#include <skiff/core/log.hpp>

#include <new>

namespace {

auto logger() {
    return skiff::log::get("mem");
}

} // namespace

extern "C" {

doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr) {
    if (buf_arr == nullptr || num_elem == 0) {
        logger()->error("doca_buf_arr_create: num_elem must be > 0");
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *arr = new (std::nothrow) doca_buf_arr{};
    if (arr == nullptr) return DOCA_ERROR_NO_MEMORY;
    arr->num_elem = num_elem;
    skiff::core::mem::live_handles().add(arr);
    *buf_arr = arr;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr, struct doca_gpu *gpu_handler) {
    if (buf_arr == nullptr || gpu_handler == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf_arr->started) return DOCA_ERROR_BAD_STATE;
    buf_arr->target_gpu = gpu_handler;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_target_dpa(struct doca_buf_arr *buf_arr, struct doca_dpa *dpa_handler) {
    if (buf_arr == nullptr || dpa_handler == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf_arr->started) return DOCA_ERROR_BAD_STATE;
    buf_arr->target_dpa = dpa_handler;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr, struct doca_mmap *mmap, size_t elem_size,
                                     uint64_t start_offset) {
    if (buf_arr == nullptr || mmap == nullptr || elem_size == 0) {
        logger()->error("doca_buf_arr_set_params: needs an array, an mmap and elem_size > 0");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (buf_arr->started) return DOCA_ERROR_BAD_STATE;
    if (!mmap->range_set) {
        logger()->error(
            "doca_buf_arr_set_params: the mmap has no memory range; call doca_mmap_set_memrange first");
        return DOCA_ERROR_INVALID_VALUE;
    }
    buf_arr->mmap = mmap;
    buf_arr->elem_size = elem_size;
    buf_arr->start_offset = start_offset;
    buf_arr->params_set = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr) {
    if (buf_arr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf_arr->ever_started) {
        logger()->error("doca_buf_arr_start: a buf array can be started only once");
        return DOCA_ERROR_BAD_STATE;
    }
    if (buf_arr->target_dpa == nullptr && buf_arr->target_gpu == nullptr) {
        logger()->error("doca_buf_arr_start: no target; call doca_buf_arr_set_target_dpa or _gpu first");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!buf_arr->params_set) {
        logger()->error("doca_buf_arr_start: no mmap and element size; call doca_buf_arr_set_params first");
        return DOCA_ERROR_BAD_STATE;
    }
    doca_mmap *m = buf_arr->mmap;
    if (!m->started) {
        logger()->error("doca_buf_arr_start: the mmap is not started; start it first");
        return DOCA_ERROR_BAD_STATE;
    }
    size_t n = buf_arr->num_elem;
    bool fits = buf_arr->start_offset <= m->len && n <= (m->len - buf_arr->start_offset) / buf_arr->elem_size;
    if (!fits) {
        logger()->error("doca_buf_arr_start: offset {} + {} elements of {} bytes exceed the mmap's {} bytes",
                        buf_arr->start_offset, n, buf_arr->elem_size, m->len);
        return DOCA_ERROR_NO_MEMORY;
    }
    auto elements = std::unique_ptr<skiff::core::mem::BufArrElement[]>(
        new (std::nothrow) skiff::core::mem::BufArrElement[n]);
    if (elements == nullptr) return DOCA_ERROR_NO_MEMORY;
    skiff::core::mem::dpa_mmap_handle(m); // device code asks for the elements' mmap by handle
    for (size_t i = 0; i < n; ++i)
        elements[i] = {m->addr + buf_arr->start_offset + i * buf_arr->elem_size, buf_arr->elem_size, m};
    buf_arr->elements = std::move(elements);
    buf_arr->table = {n, buf_arr->elements.get()};
    buf_arr->started = true;
    buf_arr->ever_started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr) {
    if (buf_arr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    buf_arr->started = false;
    buf_arr->elements.reset();
    buf_arr->table = {};
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr) {
    if (buf_arr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (auto r = skiff::core::mem::check_live(buf_arr, "doca_buf_arr_destroy"); r != DOCA_SUCCESS) return r;
    skiff::core::mem::live_handles().remove(buf_arr);
    delete buf_arr;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr,
                                         struct doca_gpu_buf_arr **gpu_buf_arr) {
    if (buf_arr == nullptr || gpu_buf_arr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!buf_arr->started) return DOCA_ERROR_BAD_STATE;
    if (buf_arr->target_gpu == nullptr) {
        logger()->error("doca_buf_arr_get_gpu_handle: the array targets the DPA, not a GPU");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    logger()->error("doca_buf_arr_get_gpu_handle: GPUs are not emulated by skiff");
    return DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_buf_arr_get_dpa_handle(const struct doca_buf_arr *buf_arr,
                                         doca_dpa_dev_buf_arr_t *dpa_buf_arr) {
    if (buf_arr == nullptr || dpa_buf_arr == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!buf_arr->started) return DOCA_ERROR_BAD_STATE;
    if (buf_arr->target_dpa == nullptr) {
        logger()->error("doca_buf_arr_get_dpa_handle: the array targets a GPU; set_target_dpa before start");
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *dpa_buf_arr = static_cast<doca_dpa_dev_buf_arr_t>(reinterpret_cast<uintptr_t>(&buf_arr->table));
    return DOCA_SUCCESS;
}

} // extern "C"
