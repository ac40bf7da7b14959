// doca_buf lists: chaining, unchaining and walking. The head holds the list's refcount; members
// always hold 1.
#include <doca_buf.h>

#include "mem/buf.hpp"

#include <skiff/core/log.hpp>

namespace {

doca_buf *last_of(doca_buf *b) {
    while (b->next != nullptr) b = b->next;
    return b;
}

} // namespace

extern "C" {

doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf) {
    if (buf == nullptr || next_buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *next_buf = buf->next;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf) {
    if (buf == nullptr || last_buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *last_buf = last_of(buf);
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last) {
    if (buf == nullptr || is_last == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *is_last = buf->next == nullptr ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first) {
    if (buf == nullptr || is_first == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *is_first = buf->prev == nullptr ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list) {
    if (buf == nullptr || is_in_list == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *is_in_list = (buf->prev != nullptr || buf->next != nullptr) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements) {
    if (buf == nullptr || num_elements == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (buf->prev != nullptr) return DOCA_ERROR_NOT_PERMITTED; // only the head knows the whole list
    uint32_t n = 0;
    for (const doca_buf *b = buf; b != nullptr; b = b->next) ++n;
    *num_elements = n;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2) {
    if (list1 == nullptr || list2 == nullptr || list1 == list2) return DOCA_ERROR_INVALID_VALUE;
    if (list1->prev != nullptr || list2->prev != nullptr) {
        skiff::log::get("mem")->error("doca_buf_chain_list: both arguments must be list heads");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (list2->refcount != 1) {
        skiff::log::get("mem")->error(
            "doca_buf_chain_list: list2 has refcount {}; only a list with refcount 1 can be chained",
            list2->refcount);
        return DOCA_ERROR_NOT_PERMITTED;
    }
    doca_buf *tail = last_of(list1);
    tail->next = list2;
    list2->prev = tail;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2) {
    if (list1 == nullptr || list2 == nullptr || list1 == list2) return DOCA_ERROR_INVALID_VALUE;
    doca_buf *b = list1->next;
    while (b != nullptr && b != list2) b = b->next;
    if (b == nullptr) {
        skiff::log::get("mem")->error("doca_buf_unchain_list: list2 is not an element of list1");
        return DOCA_ERROR_INVALID_VALUE;
    }
    list2->prev->next = nullptr;
    list2->prev = nullptr;
    list2->refcount = 1;
    return DOCA_SUCCESS;
}

} // extern "C"
