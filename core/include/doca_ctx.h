/*
 * skiff core: DOCA context, the base of every data-path library (DMA, RDMA, sync event, ...).
 * A ctx is never created by itself: create the library object and view it with doca_<lib>_as_ctx.
 *
 * Life cycle: IDLE -> (start) -> RUNNING (or STARTING -> RUNNING for connection-oriented contexts)
 *             -> (stop) -> STOPPING while tasks are in flight or still allocated -> IDLE.
 * Every transition is reported through the state-changed callback, with the ctx already in the
 * new state: from inside doca_pe_progress() on the progress engine's thread, except a stop that
 * completes at once (doca_ctx_stop returns DOCA_SUCCESS), whose -> IDLE callback runs inside
 * doca_ctx_stop. Either way the -> IDLE callback has run before the caller can see IDLE, so an
 * application that restarts as soon as it sees IDLE never receives it while RUNNING.
 *
 * Stop and tasks in flight: every task in flight when the application stops the ctx
 * (doca_ctx_stop) fails: its error callback runs during progress with DOCA_ERROR_SHUTDOWN (or the
 * error it had already met), even if the engine had finished its work. One exception: a Comch
 * send task whose message was already handed to the peer at submit completes with success (it
 * was drained, not flushed: the peer has the message, and a failure would tell the application it
 * did not). After a fatal error (the ctx stops by itself) tasks the engine completed before the
 * error keep their success; the rest are flushed with DOCA_ERROR_SHUTDOWN.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_gpu;
struct doca_dpa;

/** The four states of a context. */
enum doca_ctx_states {
    /** Created or fully stopped: configurable; no tasks can be allocated or submitted. */
    DOCA_CTX_STATE_IDLE = 0,
    /** Asynchronous start in progress: no tasks yet. */
    DOCA_CTX_STATE_STARTING = 1,
    /** The only state in which tasks are allocated and submitted; configuration is frozen. */
    DOCA_CTX_STATE_RUNNING = 2,
    /** Stop requested: in-flight tasks are flushed through their error callbacks during progress
     *  (DOCA_ERROR_SHUTDOWN); the ctx becomes IDLE once every task has been freed. */
    DOCA_CTX_STATE_STOPPING = 3,
};

/**
 * Called on every state change, from inside doca_pe_progress(); the ctx is already in next_state.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
                                                  enum doca_ctx_states prev_state,
                                                  enum doca_ctx_states next_state);

/**
 * Freezes the configuration and starts the ctx.
 * @return DOCA_SUCCESS (now RUNNING), DOCA_ERROR_IN_PROGRESS (STARTING; RUNNING is reported later),
 * DOCA_ERROR_INVALID_VALUE (NULL ctx or incomplete configuration), DOCA_ERROR_NOT_CONNECTED (no
 * progress engine connected and no DPA data path set), DOCA_ERROR_BAD_STATE (not IDLE),
 * DOCA_ERROR_NOT_SUPPORTED, DOCA_ERROR_INITIALIZATION.
 */
DOCA_STABLE
doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/**
 * Stops the ctx, allowing reconfiguration. Tasks in flight fail with DOCA_ERROR_SHUTDOWN.
 * @return DOCA_SUCCESS (now IDLE, the state-changed callback has run; also for a ctx that is
 * already IDLE: stopping is idempotent, as cleanup paths stop unconditionally),
 * DOCA_ERROR_IN_PROGRESS (STOPPING: tasks are in flight or not yet freed, or the call was made
 * inside a callback of the ctx's progress engine, where a stop is always asynchronous; keep
 * progressing until IDLE is reported), DOCA_ERROR_INVALID_VALUE (NULL ctx).
 */
DOCA_STABLE
doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/** Number of tasks submitted and not yet completed through a callback. */
DOCA_STABLE
doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/**
 * Hands the engine every task submitted without DOCA_TASK_SUBMIT_FLAG_FLUSH (doca_task_submit_ex).
 * skiff's engines take each task at submit, so nothing is ever held back and this has nothing
 * to do; it exists so that programs written for hardware that batches run unchanged.
 */
DOCA_EXPERIMENTAL
void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/** GPU data path: not available in skiff (DOCA_ERROR_NOT_SUPPORTED); BAD_STATE once started. */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);

/** DPA data path: DOCA_ERROR_NOT_SUPPORTED by contexts that have none; BAD_STATE once started. */
DOCA_EXPERIMENTAL
doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

/** User data handed to the state-changed callback and to every task callback. */
DOCA_STABLE
doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);

DOCA_STABLE
doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/** Sets the state-changed callback (any state). */
DOCA_STABLE
doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

DOCA_STABLE
doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
