/*
 * skiff core: buffer pools (DOCA 2.x API). num_elements bufs, each bound for life to its own
 * fixed slice of one mmap (element_size bytes, aligned). Thread-unsafe.
 */
#ifndef DOCA_BUF_POOL_H_
#define DOCA_BUF_POOL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_mmap;
struct doca_buf;
struct doca_buf_pool;

/** num_elements > 0, element_size > 0; mmap must already have its memory range. */
DOCA_STABLE doca_error_t doca_buf_pool_create(size_t num_elements, size_t element_size,
                                              const struct doca_mmap *mmap, struct doca_buf_pool **buf_pool);
/** IN_USE while bufs are outstanding; implicitly stops. */
DOCA_STABLE doca_error_t doca_buf_pool_destroy(struct doca_buf_pool *buf_pool);
/** BAD_STATE if the mmap is not started; INITIALIZATION if the mmap range cannot hold every element. */
DOCA_STABLE doca_error_t doca_buf_pool_start(struct doca_buf_pool *buf_pool);
/** IN_USE while bufs are outstanding; setters work again afterwards. */
DOCA_STABLE doca_error_t doca_buf_pool_stop(struct doca_buf_pool *buf_pool);
/** An empty buf (data = head, data_len = 0). BAD_STATE if not started; EMPTY when exhausted. */
DOCA_STABLE doca_error_t doca_buf_pool_buf_alloc(struct doca_buf_pool *buf_pool, struct doca_buf **buf);
DOCA_STABLE doca_error_t doca_buf_pool_set_user_data(struct doca_buf_pool *buf_pool,
                                                     union doca_data user_data);
/** A power of 2, at least 1 (the default); BAD_STATE once started. */
DOCA_STABLE doca_error_t doca_buf_pool_set_element_alignment(struct doca_buf_pool *buf_pool,
                                                             size_t element_alignment);
DOCA_STABLE doca_error_t doca_buf_pool_get_num_elements(const struct doca_buf_pool *buf_pool,
                                                        uint32_t *num_of_elements);
DOCA_STABLE doca_error_t doca_buf_pool_get_num_free_elements(const struct doca_buf_pool *buf_pool,
                                                             uint32_t *num_of_free_elements);
DOCA_STABLE doca_error_t doca_buf_pool_get_user_data(const struct doca_buf_pool *buf_pool,
                                                     union doca_data *user_data);
DOCA_STABLE doca_error_t doca_buf_pool_get_element_alignment(const struct doca_buf_pool *buf_pool,
                                                             size_t *element_alignment);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_POOL_H_ */
