/*
 * skiff core: DOCA DPA, device side. In skiff "device code" is ordinary C/C++ running on an
 * emulated execution unit (see doca_dpa.h); these calls are valid only there (in a DPA-thread
 * function, a launched kernel or an RPC function). Misuse that real hardware would turn into a
 * crash (an invalid handle, an overflowing completion queue, a value outside [0, 254] for a DPA
 * sync-event wait, a resource of an extended context used without doca_dpa_dev_device_set) puts the
 * DPA context in its fatal error state instead (doca_dpa_peek_at_last_error).
 */
#ifndef DOCA_DPA_DEV_H_
#define DOCA_DPA_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dpa.h>
#include <doca_mmap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Kernels (launched with doca_dpa_kernel_launch_update_*) only ---- */

DOCA_EXPERIMENTAL unsigned int doca_dpa_dev_thread_rank(void);
DOCA_EXPERIMENTAL unsigned int doca_dpa_dev_num_threads(void);
DOCA_EXPERIMENTAL void doca_dpa_dev_yield(void);

/* ---- Context selection ---- */

/** Selects the (extended) context whose resources the following calls use. */
DOCA_EXPERIMENTAL void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle);

/* ---- DPA threads only ---- */

/** The thread's local storage (doca_dpa_thread_set_local_storage), 0 when none. */
DOCA_EXPERIMENTAL doca_dpa_dev_uintptr_t doca_dpa_dev_thread_get_local_storage(void);
/**
 * Ends the run: the thread can be triggered again. Neither this nor doca_dpa_dev_thread_finish
 * returns to the thread function (as on the DPA: the run ends where it is called; C++ device code
 * must not call them with objects to destroy alive); a thread function that returns without either
 * reschedules.
 */
DOCA_EXPERIMENTAL void doca_dpa_dev_thread_reschedule(void);
/** Ends the run for good: later completions and notifications do not run the thread again. */
DOCA_EXPERIMENTAL void doca_dpa_dev_thread_finish(void);
/** Triggers the thread bound to the notification completion (no payload). */
DOCA_EXPERIMENTAL void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t notify_handle);

/* ---- Completion contexts ---- */

typedef uint64_t doca_dpa_dev_completion_element_t;

typedef enum doca_dpa_dev_completion_type {
    DOCA_DPA_DEV_COMP_SEND = 0x0,
    DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM = 0x1,
    DOCA_DPA_DEV_COMP_RECV_SEND = 0x2,
    DOCA_DPA_DEV_COMP_RECV_SEND_IMM = 0x3,
    DOCA_DPA_DEV_COMP_SEND_ERR = 0xD,
    DOCA_DPA_DEV_COMP_RECV_ERR = 0xE,
} doca_dpa_dev_completion_type_t;

/** Non-zero when a populated completion was found (it stays in the queue until acked). */
DOCA_EXPERIMENTAL int doca_dpa_dev_get_completion(doca_dpa_dev_completion_t dpa_comp_handle,
                                                  doca_dpa_dev_completion_element_t *comp_element);
DOCA_EXPERIMENTAL doca_dpa_dev_completion_type_t
doca_dpa_dev_get_completion_type(doca_dpa_dev_completion_element_t comp_element);
/** Async-ops user data, or the RDMA connection id. */
DOCA_EXPERIMENTAL uint32_t
doca_dpa_dev_get_completion_user_data(doca_dpa_dev_completion_element_t comp_element);
DOCA_EXPERIMENTAL uint32_t
doca_dpa_dev_get_completion_immediate(doca_dpa_dev_completion_element_t comp_element);
/** Frees num_comp read elements (room for as many new completions). */
DOCA_EXPERIMENTAL void doca_dpa_dev_completion_ack(doca_dpa_dev_completion_t dpa_comp_handle,
                                                   uint64_t num_comp);
/**
 * Arms the context: completions that arrived since the last populate are populated, and the next
 * completion (or one already waiting) triggers the attached thread once. Without it nothing new is
 * populated or delivered.
 */
DOCA_EXPERIMENTAL void
doca_dpa_dev_completion_request_notification(doca_dpa_dev_completion_t dpa_comp_handle);

/* ---- Async ops (submit flags shared with DPA RDMA) ---- */

enum doca_dpa_dev_submit_flag {
    DOCA_DPA_DEV_SUBMIT_FLAG_NONE = 0,
    /** Issue this operation and every earlier unflushed one. */
    DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH = (1 << 0),
    /** No completion of its own; reported by the next completion that is not deferred. */
    DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1 << 1),
};

/** Copies len bytes between two mmaps (addresses in each mmap's range). Completion type SEND, or SEND_ERR. */
DOCA_EXPERIMENTAL void doca_dpa_dev_post_memcpy(doca_dpa_dev_async_ops_t async_ops_handle,
                                                doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                                doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr,
                                                size_t length, uint32_t flags);

/* ---- Hash table (not thread-safe; adding to a full table is the fatal error) ---- */

DOCA_EXPERIMENTAL void doca_dpa_dev_hash_table_add(doca_dpa_dev_hash_table_t ht_handle, uint32_t key,
                                                   uint64_t value);
DOCA_EXPERIMENTAL void doca_dpa_dev_hash_table_remove(doca_dpa_dev_hash_table_t ht_handle, uint32_t key);
/** Non-zero when found. */
DOCA_EXPERIMENTAL int doca_dpa_dev_hash_table_find(doca_dpa_dev_hash_table_t ht_handle, uint32_t key,
                                                   uint64_t *value);

/* ---- Logging and tracing ---- */

#define DOCA_DPA_DEV_LOG_LEVEL_DISABLE 10
#define DOCA_DPA_DEV_LOG_LEVEL_CRIT 20
#define DOCA_DPA_DEV_LOG_LEVEL_ERROR 30
#define DOCA_DPA_DEV_LOG_LEVEL_WARNING 40
#define DOCA_DPA_DEV_LOG_LEVEL_INFO 50
#define DOCA_DPA_DEV_LOG_LEVEL_DEBUG 60

DOCA_EXPERIMENTAL void doca_dpa_dev_log(int log_level, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
#define DOCA_DPA_DEV_LOG_CRIT(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_CRIT, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_ERR(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_WARN(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_INFO(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_DPA_DEV_LOG_DBG(...) doca_dpa_dev_log(DOCA_DPA_DEV_LOG_LEVEL_DEBUG, __VA_ARGS__)

/** Records five values in the EU's trace buffer (written to the trace file on flush / when full). */
DOCA_EXPERIMENTAL void doca_dpa_dev_trace(uint64_t arg1, uint64_t arg2, uint64_t arg3, uint64_t arg4,
                                          uint64_t arg5);
DOCA_EXPERIMENTAL void doca_dpa_dev_trace_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_H_ */
