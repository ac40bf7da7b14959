// doca_buf_pool: descriptors bound for life to fixed, aligned slices of one mmap.
#include <doca_buf_pool.h>

#include "mem/descriptor_pool.hpp"
#include "mem/mmap.hpp"

#include <skiff/core/log.hpp>

#include <limits>
#include <new>

struct doca_buf_pool {
    doca_buf_pool(uint32_t n, size_t size, doca_mmap *m) : descriptors(n), element_size(size), mmap(m) {}
    skiff::core::mem::DescriptorPool descriptors;
    size_t element_size;
    size_t alignment = 1;
    doca_mmap *mmap;
    bool started = false;
    uint8_t *first = nullptr; // address of element 0, computed at start
    size_t stride = 0;        // element_size rounded up to the alignment
    union doca_data user_data {};
};

namespace {

auto logger() {
    return skiff::log::get("mem");
}

uintptr_t align_up(uintptr_t v, size_t a) {
    return (v + a - 1) & ~(static_cast<uintptr_t>(a) - 1);
}

} // namespace

extern "C" {

doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size, const struct doca_mmap *mmap,
                                  struct doca_buf_pool **buf_pool) {
    if (buf_pool == nullptr || mmap == nullptr || num_elements == 0 || element_size == 0 ||
        num_elements > std::numeric_limits<uint32_t>::max()) {
        logger()->error(
            "doca_buf_pool_create: needs num_elements in 1..2^32-1, element_size > 0 and an mmap");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (!mmap->range_set) {
        logger()->error(
            "doca_buf_pool_create: the mmap has no memory range; call doca_mmap_set_memrange first");
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *pool = new (std::nothrow)
        doca_buf_pool(static_cast<uint32_t>(num_elements), element_size, const_cast<doca_mmap *>(mmap));
    if (pool == nullptr || !pool->descriptors.allocated()) {
        delete pool;
        return DOCA_ERROR_NO_MEMORY;
    }
    *buf_pool = pool;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool) {
    if (buf_pool == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (uint32_t n = buf_pool->descriptors.num_taken(); n != 0) {
        logger()->error("doca_buf_pool_destroy: {} buf(s) are still outstanding; release them first", n);
        return DOCA_ERROR_IN_USE;
    }
    delete buf_pool;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool) {
    if (buf_pool == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf_pool->started) return DOCA_ERROR_BAD_STATE;
    const doca_mmap *m = buf_pool->mmap;
    if (!m->started) {
        logger()->error("doca_buf_pool_start: the mmap is not started; start it first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto base = reinterpret_cast<uintptr_t>(m->addr);
    uintptr_t first = align_up(base, buf_pool->alignment);
    size_t stride = align_up(buf_pool->element_size, buf_pool->alignment);
    size_t n = buf_pool->descriptors.size();
    // Room needed: padding to the first aligned element, n - 1 strides, and the last element.
    size_t pad = first - base;
    bool fits = pad <= m->len && (n - 1) <= (m->len - pad) / stride &&
                (n - 1) * stride + buf_pool->element_size <= m->len - pad;
    if (!fits) {
        logger()->error(
            "doca_buf_pool_start: {} elements of {} bytes (alignment {}) do not fit in the mmap's {} bytes",
            n, buf_pool->element_size, buf_pool->alignment, m->len);
        return DOCA_ERROR_INITIALIZATION;
    }
    buf_pool->first = reinterpret_cast<uint8_t *>(first);
    buf_pool->stride = stride;
    buf_pool->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool) {
    if (buf_pool == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!buf_pool->started) return DOCA_ERROR_BAD_STATE;
    if (uint32_t n = buf_pool->descriptors.num_taken(); n != 0) {
        logger()->error("doca_buf_pool_stop: {} buf(s) are still outstanding; release them first", n);
        return DOCA_ERROR_IN_USE;
    }
    buf_pool->started = false;
    return DOCA_SUCCESS;
}

// Data path: no allocation, no lock.
doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool, struct doca_buf **buf) {
    if (buf_pool == nullptr || buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!buf_pool->started) return DOCA_ERROR_BAD_STATE;
    doca_buf *b = buf_pool->descriptors.take();
    if (b == nullptr) return DOCA_ERROR_EMPTY;
    uint8_t *head =
        buf_pool->first + static_cast<size_t>(buf_pool->descriptors.index_of(b)) * buf_pool->stride;
    skiff::core::mem::buf_attach(b, buf_pool->mmap, head, buf_pool->element_size, head, 0);
    *buf = b;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool, union doca_data user_data) {
    if (buf_pool == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf_pool->started) return DOCA_ERROR_BAD_STATE;
    buf_pool->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool, size_t element_alignment) {
    if (buf_pool == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (element_alignment == 0 || (element_alignment & (element_alignment - 1)) != 0) {
        logger()->error("doca_buf_pool_set_element_alignment: {} is not a power of 2 (1, 2, 4, ...)",
                        element_alignment);
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (buf_pool->started) return DOCA_ERROR_BAD_STATE;
    buf_pool->alignment = element_alignment;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_num_elements(const struct doca_buf_pool *buf_pool, uint32_t *num_of_elements) {
    if (buf_pool == nullptr || num_of_elements == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *num_of_elements = buf_pool->descriptors.size();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_num_free_elements(const struct doca_buf_pool *buf_pool,
                                                 uint32_t *num_of_free_elements) {
    if (buf_pool == nullptr || num_of_free_elements == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *num_of_free_elements = buf_pool->descriptors.num_free();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_user_data(const struct doca_buf_pool *buf_pool, union doca_data *user_data) {
    if (buf_pool == nullptr || user_data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *user_data = buf_pool->user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_pool_get_element_alignment(const struct doca_buf_pool *buf_pool,
                                                 size_t *element_alignment) {
    if (buf_pool == nullptr || element_alignment == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *element_alignment = buf_pool->alignment;
    return DOCA_SUCCESS;
}

} // extern "C"
