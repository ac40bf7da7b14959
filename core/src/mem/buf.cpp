// doca_buf: geometry (head/len/data/data_len) and reference counting.
#include <doca_buf.h>

#include "mem/buf.hpp"
#include "mem/descriptor_pool.hpp"
#include "mem/mmap.hpp"

#include <skiff/core/log.hpp>

#include <cstdint>

namespace skiff::core::mem {

void buf_attach(doca_buf *b, doca_mmap *mmap, uint8_t *addr, size_t len, uint8_t *data, size_t data_len) {
    b->mmap = mmap;
    b->head = addr;
    b->len = len;
    b->data = data;
    b->data_len = data_len;
    b->next = nullptr;
    b->prev = nullptr;
    b->refcount = 1;
    mmap->num_bufs.fetch_add(1, std::memory_order_relaxed);
}

void buf_release_list(doca_buf *head) {
    for (doca_buf *b = head; b != nullptr;) {
        doca_buf *next = b->next;
        b->mmap->num_bufs.fetch_sub(1, std::memory_order_relaxed);
        b->refcount = 0;
        b->home->give(b);
        b = next;
    }
}

} // namespace skiff::core::mem

namespace {

bool is_list_member(const doca_buf *b) {
    return b->prev != nullptr;
}

// [data, data + data_len] inside [head, head + len].
bool data_fits(const doca_buf *b, const uint8_t *data, size_t data_len) {
    return data >= b->head && data_len <= b->len && static_cast<size_t>(data - b->head) <= b->len - data_len;
}

// Out of line: doca_buf_set_data runs twice per DMA task, and the report's formatting would give
// every call a heavy stack frame.
[[gnu::cold, gnu::noinline]] doca_error_t refuse_data_region(const doca_buf *buf, const void *data,
                                                             size_t data_len) {
    skiff::log::get("mem")->error("doca_buf_set_data: [{}, +{}) is outside the buffer [{}, +{})", data,
                                  data_len, static_cast<void *>(buf->head), buf->len);
    return DOCA_ERROR_INVALID_VALUE;
}

} // namespace

extern "C" {

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount) {
    if (buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (is_list_member(buf)) return DOCA_ERROR_NOT_PERMITTED; // the head carries the list's count
    if (buf->refcount == UINT16_MAX) return DOCA_ERROR_TOO_BIG;
    if (refcount != nullptr) *refcount = buf->refcount;
    ++buf->refcount;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount) {
    if (buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (is_list_member(buf)) return DOCA_ERROR_NOT_PERMITTED;
    if (buf->refcount == 0) return DOCA_ERROR_BAD_STATE;
    if (refcount != nullptr) *refcount = buf->refcount;
    if (--buf->refcount == 0) skiff::core::mem::buf_release_list(buf);
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount) {
    if (buf == nullptr || refcount == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *refcount = buf->refcount;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len) {
    if (buf == nullptr || len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *len = buf->len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head) {
    if (buf == nullptr || head == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *head = buf->head;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len) {
    if (buf == nullptr || data_len == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *data_len = buf->data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data) {
    if (buf == nullptr || data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *data = buf->data;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len) {
    if (buf == nullptr || data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto *d = static_cast<uint8_t *>(data);
    // DOCA leaves a data region outside the buffer undefined; skiff refuses it.
    if (!data_fits(buf, d, data_len)) return refuse_data_region(buf, data, data_len);
    buf->data = d;
    buf->data_len = data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len) {
    if (buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!data_fits(buf, buf->data, data_len)) {
        skiff::log::get("mem")->error(
            "doca_buf_set_data_len: {} bytes from the data pointer pass the buffer end; "
            "at most {} fit",
            data_len, buf->len - static_cast<size_t>(buf->data - buf->head));
        return DOCA_ERROR_INVALID_VALUE;
    }
    buf->data_len = data_len;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf) {
    if (buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    buf->data_len = 0;
    return DOCA_SUCCESS;
}

} // extern "C"
