/*
 * skiff core: DOCA DMA, an (emulated) engine that copies between doca_bufs asynchronously.
 *
 * A memcpy task reads the data region of the source buf (or of every element of a source list),
 * appends the bytes into the tailroom of the destination (element after element for a list) and
 * grows the destination's data length. Either side may live in an mmap imported from another
 * process; the engine then reaches the exporter's memory.
 *
 * As on the hardware, a task that fails on the engine (error callback with DOCA_ERROR_INVALID_VALUE
 * for bad geometry or an empty source, DOCA_ERROR_NOT_PERMITTED for a destination the engine may not
 * write, DOCA_ERROR_NOT_CONNECTED for a revoked export) moves the context to STOPPING: the tasks
 * behind it complete with DOCA_ERROR_SHUTDOWN and the context becomes IDLE once all tasks are freed;
 * doca_ctx_start recovers. doca_task_try_submit refuses such tasks up front (INVALID_VALUE).
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <inttypes.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;

/** A DMA memcpy task. */
struct doca_dma_task_memcpy;

/** Completion and error callback of memcpy tasks (see doca_task_completion_cb_t). */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task,
                                                     union doca_data task_user_data,
                                                     union doca_data ctx_user_data);

/** A DMA context. */
struct doca_dma;

/**
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL argument), DOCA_ERROR_NOT_SUPPORTED (the
 * device has no DMA memcpy capability), DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE
doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/** @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_IN_USE (ctx not IDLE). */
DOCA_STABLE
doca_error_t doca_dma_destroy(struct doca_dma *dma);

/** DOCA_SUCCESS when the device can run memcpy tasks, DOCA_ERROR_NOT_SUPPORTED otherwise. */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/** The same object seen as a generic ctx. */
DOCA_STABLE
struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/** The largest num_memcpy_tasks accepted by doca_dma_task_memcpy_set_conf. */
DOCA_STABLE
doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/** The longest buf list (source or destination) a memcpy task accepts; 1 means no lists. */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                           uint32_t *max_buf_list_len);

/** The largest number of bytes one memcpy task moves. */
DOCA_STABLE
doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                       uint64_t *buf_size);

/**
 * Enables memcpy tasks: callbacks and the size of the task pool (allocated at start). IDLE only.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL argument, 0 tasks or more than the maximum),
 * DOCA_ERROR_BAD_STATE (ctx not IDLE).
 */
DOCA_STABLE
doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
                                           doca_dma_task_memcpy_completion_cb_t task_completion_cb,
                                           doca_dma_task_memcpy_completion_cb_t task_error_cb,
                                           uint32_t num_memcpy_tasks);

/**
 * Takes a task from the pool (RUNNING only) and initialises it.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (ctx not RUNNING),
 * DOCA_ERROR_NO_MEMORY (all num_memcpy_tasks tasks are allocated).
 */
DOCA_STABLE
doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
                                             struct doca_buf *dst, union doca_data user_data,
                                             struct doca_dma_task_memcpy **task);

DOCA_STABLE
struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

DOCA_STABLE
void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);

DOCA_STABLE
const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);

DOCA_STABLE
void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);

DOCA_STABLE
struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

/*
 * skiff extensions (not part of DOCA): debug and test controls of the emulated engine.
 */

/**
 * Delivers completions in a seeded pseudo-random order instead of completion order, so that no
 * caller relies on FIFO. seed 0 turns it off. The environment variable
 * SKIFF_DMA_COMPLETION_ORDER_SEED sets the default of every new DMA context. IDLE only
 * (DOCA_ERROR_BAD_STATE otherwise).
 */
doca_error_t skiff_dma_set_completion_order_seed(struct doca_dma *dma, uint64_t seed);

/** Where a DMA context runs its copies (skiff's emulated engine; see skiff_dma_set_engine). */
enum skiff_dma_engine_kind {
    /** Inside doca_pe_progress() of the context's progress engine, on its caller's thread. */
    SKIFF_DMA_ENGINE_INLINE = 0,
    /** On the process's one shared DMA worker thread, overlapping the application's work. */
    SKIFF_DMA_ENGINE_THREAD = 1,
};

/**
 * Chooses the engine that runs this context's copies. Either way a task completes inside a
 * doca_pe_progress() call made after its submit, never inside doca_task_submit(). The inline
 * engine costs a memcpy per task plus the progress call (the default: DOCA applications progress
 * their PE anyway); the threaded one overlaps copies with the application's work when a core is
 * free for it, and costs a hand-off between threads per task. The environment variable
 * SKIFF_DMA_ENGINE=inline|thread sets the default of every new DMA context. IDLE only
 * (DOCA_ERROR_BAD_STATE otherwise); DOCA_ERROR_INVALID_VALUE for a NULL dma or an unknown kind.
 */
doca_error_t skiff_dma_set_engine(struct doca_dma *dma, enum skiff_dma_engine_kind kind);

/** The engine this context runs its copies on. DOCA_ERROR_INVALID_VALUE for NULL arguments. */
doca_error_t skiff_dma_get_engine(const struct doca_dma *dma, enum skiff_dma_engine_kind *kind);

/**
 * Debug check of the in-flight rule: the digest of every task's source data is taken at submit and
 * compared when the engine runs the task; a difference fails the task with DOCA_ERROR_UNEXPECTED
 * (and, like any failure, stops the ctx). Without it the engine copies the source as it is at
 * execution time. The environment variable SKIFF_DMA_CHECK_INFLIGHT=1 turns it on for every new
 * DMA context. IDLE only (DOCA_ERROR_BAD_STATE otherwise).
 */
doca_error_t skiff_dma_set_inflight_check(struct doca_dma *dma, int enabled);

/**
 * Test control: while held (held != 0) the engine runs no task; submitted tasks wait in its queue
 * and run once released. Any state.
 */
doca_error_t skiff_dma_hold_engine(struct doca_dma *dma, int held);

/**
 * Makes the nth memcpy task executed from now on (1 = the next one) fail with status, as a fatal
 * engine error: its error callback carries status, the ctx moves to STOPPING, every other in-flight
 * task is flushed and the ctx becomes IDLE once all tasks are freed. A later start works normally.
 * nth 0 cancels. @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL dma or DOCA_SUCCESS as status).
 */
doca_error_t skiff_dma_inject_fatal_error(struct doca_dma *dma, uint32_t nth, doca_error_t status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DOCA_DMA_H_ */
