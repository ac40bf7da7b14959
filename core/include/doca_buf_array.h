/*
 * skiff core: buffer arrays (DOCA 2.x API). num_elem fixed-size elements of one mmap, laid out
 * from start_offset, for use by the (emulated) DPA or a GPU. The DPA handle names an element
 * table: element i covers [mmap addr + start_offset + i * elem_size, + elem_size).
 */
#ifndef DOCA_BUF_ARRAY_H_
#define DOCA_BUF_ARRAY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_gpu;
struct doca_dpa;
struct doca_mmap;

struct doca_buf_arr;
struct doca_gpu_buf_arr;

/** A doca_buf_arr handle on the DPA. */
typedef uint64_t doca_dpa_dev_buf_arr_t;

/** num_elem > 0. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_create(size_t num_elem, struct doca_buf_arr **buf_arr);
/** BAD_STATE once started. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_target_gpu(struct doca_buf_arr *buf_arr,
                                                           struct doca_gpu *gpu_handler);
/** BAD_STATE once started. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_target_dpa(struct doca_buf_arr *buf_arr,
                                                           struct doca_dpa *dpa_handler);
/** mmap must have its memory range; elem_size > 0. BAD_STATE once started. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_set_params(struct doca_buf_arr *buf_arr, struct doca_mmap *mmap,
                                                       size_t elem_size, uint64_t start_offset);
/**
 * BAD_STATE if started once before, without a target, without params, or with the mmap not
 * started; NO_MEMORY if the mmap range cannot hold start_offset + num_elem * elem_size.
 */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_start(struct doca_buf_arr *buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_stop(struct doca_buf_arr *buf_arr);
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_destroy(struct doca_buf_arr *buf_arr);
/** BAD_STATE unless started. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_get_gpu_handle(const struct doca_buf_arr *buf_arr,
                                                           struct doca_gpu_buf_arr **gpu_buf_arr);
/** BAD_STATE unless started. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_arr_get_dpa_handle(const struct doca_buf_arr *buf_arr,
                                                           doca_dpa_dev_buf_arr_t *dpa_buf_arr);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_ARRAY_H_ */
