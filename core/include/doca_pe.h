/*
 * skiff core: the progress engine (PE) and the generic task API.
 *
 * A PE is used by one thread at a time. Every task completion, error and ctx state change is
 * delivered from inside doca_pe_progress(), on the calling thread, one unit of work per call, in no
 * particular order. In notification mode the application waits on the PE's event handle (an
 * epoll-able fd): arm with doca_pe_request_notification(), wait, doca_pe_clear_notification(),
 * then progress until it returns 0. Wake-ups may be spurious.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdlib.h> /* as DOCA's doca_pe.h: programs rely on it */
#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_task;

/**
 * Task completion (and error) callback. Ownership of the task returns to the user, who may
 * re-submit it, free it or keep it. Calling doca_pe_progress() from a callback is rejected.
 */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
                                          union doca_data ctx_user_data);

/** @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL pe), DOCA_ERROR_NO_MEMORY,
 * DOCA_ERROR_OPERATING_SYSTEM. */
DOCA_STABLE
doca_error_t doca_pe_create(struct doca_pe **pe);

/** @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_IN_USE (contexts still connected). */
DOCA_STABLE
doca_error_t doca_pe_destroy(struct doca_pe *pe);

/**
 * Runs one unit of work: one task completion, one ctx state transition or one event.
 * @return 1 if progress was made, 0 otherwise (also when called re-entrantly from a callback).
 */
DOCA_STABLE
uint8_t doca_pe_progress(struct doca_pe *pe);

/** The PE's wait handle (an eventfd); constant for the PE's whole life. */
DOCA_STABLE
doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/** Clears a received notification; the PE may then be armed again. handle: the PE's own handle
 *  or 0 (DOCA documents it as unused on Linux; its samples pass 0); any other value is
 *  DOCA_ERROR_INVALID_VALUE. */
DOCA_STABLE
doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/** Arms the PE: its handle becomes readable once work is ready (at once if some already is). */
DOCA_STABLE
doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/** Sum of the in-flight tasks of every connected ctx. */
DOCA_STABLE
doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/**
 * Submits a task without validating it (an invalid task fails in its error callback).
 * @return DOCA_SUCCESS (DOCA owns the task), or an error (the user keeps the task):
 * DOCA_ERROR_INVALID_VALUE (NULL or freed task), DOCA_ERROR_BAD_STATE (ctx not RUNNING or task
 * already submitted).
 */
DOCA_STABLE
doca_error_t doca_task_submit(struct doca_task *task);

/** Flags for doca_task_submit_ex, or-ed together. */
enum doca_task_submit_flag {
    DOCA_TASK_SUBMIT_FLAG_NONE = 0U,
    /** Hand this task, and every earlier one not yet handed over, to the engine now. Without it the
     * ctx may gather tasks and hand them over together (skiff's engines never wait). */
    DOCA_TASK_SUBMIT_FLAG_FLUSH = (1U << 0),
    /** The completion may be reported later, together with that of the next task submitted
     * without this flag (fewer reports for a batch). skiff reports every task as it completes,
     * which the flag allows. */
    DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1),
};

/**
 * doca_task_submit with flags (enum doca_task_submit_flag). DOCA_ERROR_INVALID_VALUE for a bit
 * that is not a flag; otherwise as doca_task_submit.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/** Validates the task first: DOCA_ERROR_INVALID_VALUE for an invalid task, else as doca_task_submit. */
DOCA_STABLE
doca_error_t doca_task_try_submit(struct doca_task *task);

/** Returns a task (not in flight) to its ctx. */
DOCA_STABLE
void doca_task_free(struct doca_task *task);

/** DOCA_SUCCESS after a successful completion, the failure reason after an error completion. */
DOCA_STABLE
doca_error_t doca_task_get_status(const struct doca_task *task);

DOCA_STABLE
void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

DOCA_STABLE
union doca_data doca_task_get_user_data(const struct doca_task *task);

/** The ctx that allocated the task. */
DOCA_STABLE
struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

/**
 * Connects an IDLE ctx to the PE, for the ctx's whole life.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (ctx not IDLE),
 * DOCA_ERROR_NOT_PERMITTED (ctx already connected to a PE).
 */
DOCA_STABLE
doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
