/*
 * skiff core: DOCA MMAP advise, a context whose task invalidates the CPU's cached copy of a
 * doca_buf's memory, for a program that reads with the CPU what a DMA engine has just written.
 *
 * The emulated engines write through the CPU's own caches, so the memory is coherent and the
 * invalidation itself has nothing to do; the context and its task keep DOCA's contract all the
 * same: the task is allocated while the context is RUNNING, completes through doca_pe_progress()
 * (error callback with DOCA_ERROR_INVALID_VALUE for a task without a buf or with one larger than
 * doca_mmap_advise_task_cache_invalidate_get_max_buf_size), and a stop flushes what is in flight.
 * Every device that can DMA (doca_dma_cap_task_memcpy_is_supported) supports it.
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_mmap_advise;
struct doca_mmap_advise_task_invalidate_cache;
struct doca_task;

typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
    struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
    union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_create(struct doca_dev *dev,
                                                       struct doca_mmap_advise **mmap_advise);
/* The context must be IDLE (IN_USE otherwise). */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);
DOCA_EXPERIMENTAL struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_cache_invalidate_get_max_buf_size(
    const struct doca_devinfo *devinfo, uint64_t *buf_size);

/* IDLE only (BAD_STATE otherwise); both callbacks and 1..65536 tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
    struct doca_mmap_advise *mmap_advise,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
    doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks);
/* RUNNING only; NO_MEMORY when every task is allocated. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
    struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
    struct doca_mmap_advise_task_invalidate_cache **task);
DOCA_EXPERIMENTAL struct doca_task *
doca_mmap_advise_task_invalidate_cache_as_doca_task(struct doca_mmap_advise_task_invalidate_cache *task);
DOCA_EXPERIMENTAL void
doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
                                               struct doca_buf *buf);
DOCA_EXPERIMENTAL struct doca_buf *
doca_mmap_advise_task_invalidate_cache_get_buf(const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
