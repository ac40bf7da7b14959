/*
 * skiff core: DOCA DPA device side, buffers: an element of a doca_buf_arr targeting the DPA
 * (doca_buf_arr_get_dpa_handle) and the async-ops memcpy between two of them.
 */
#ifndef DOCA_DPA_DEV_BUF_H_
#define DOCA_DPA_DEV_BUF_H_

#include <doca_buf_array.h>
#include <doca_dpa_dev.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t doca_dpa_dev_buf_t;

/** Element buf_idx of the array (0 and the fatal error when out of range). */
DOCA_EXPERIMENTAL doca_dpa_dev_buf_t doca_dpa_dev_buf_array_get_buf(doca_dpa_dev_buf_arr_t buf_arr,
                                                                    uint64_t buf_idx);
DOCA_EXPERIMENTAL uintptr_t doca_dpa_dev_buf_get_addr(doca_dpa_dev_buf_t buf);
DOCA_EXPERIMENTAL uint64_t doca_dpa_dev_buf_get_len(doca_dpa_dev_buf_t buf);
DOCA_EXPERIMENTAL doca_dpa_dev_mmap_t doca_dpa_dev_buf_get_mmap(doca_dpa_dev_buf_t buf);

/** Copies min(len(dst), len(src)) bytes; completion as doca_dpa_dev_post_memcpy. */
DOCA_EXPERIMENTAL void doca_dpa_dev_post_buf_memcpy(doca_dpa_dev_async_ops_t async_ops_handle,
                                                    doca_dpa_dev_buf_t dst_buf_handle,
                                                    doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_BUF_H_ */
