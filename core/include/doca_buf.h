/*
 * skiff core: buffers (DOCA 2.x API). A doca_buf describes [head, head + len) of one mmap, with a
 * data region [data, data + data_len) inside it (headroom before, tailroom after). Bufs can be
 * chained into lists; the head of a list carries the 16-bit reference count of the whole list.
 * Every doca_buf operation is thread-unsafe.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stdbool.h> /* as DOCA's header: programs rely on it */
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;

/** refcount = the value before. TOO_BIG at UINT16_MAX; NOT_PERMITTED on a non-head list member. */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);
/**
 * refcount (may be NULL) = the value before. At 0 the whole list goes back to its inventory or pool.
 * BAD_STATE when already 0; NOT_PERMITTED on a non-head list member.
 */
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);
/** [data, data + data_len] must lie in [head, head + len] (skiff: INVALID_VALUE otherwise). */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);
/** data + data_len must not pass head + len (skiff: INVALID_VALUE otherwise). */
DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);
/** data_len = 0, data unchanged. */
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/** next_buf = NULL after the last element. */
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);
/** NOT_PERMITTED unless buf is the head of its list. */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);
/** Appends list2 (a head with refcount 1, else NOT_PERMITTED) after the tail of list1 (a head). */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);
/** Detaches list2 (an element of list1, else INVALID_VALUE) and what follows it; list2's refcount is 1. */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
