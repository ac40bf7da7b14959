/*
 * skiff core: DOCA DPA, host side. The data-path accelerator is emulated: its execution units (EUs)
 * are worker threads of this process, pinned to cores, and "device code" is ordinary C/C++ functions
 * registered in a doca_dpa_app (skiff_dpa_app_*, below), which stands in for the DPACC-built
 * program. Device code uses the doca_dpa_dev*.h headers.
 *
 * Every DPA object is non-thread-safe (as in DOCA): one host thread configures a DPA context and its
 * objects. Once a context is in the error state (doca_dpa_peek_at_last_error != DOCA_SUCCESS) the
 * error is fatal: every call on it and its objects returns DOCA_ERROR_BAD_STATE until destroy.
 */
#ifndef DOCA_DPA_H_
#define DOCA_DPA_H_

#include <stdarg.h>
#include <stdbool.h> /* as DOCA's header: programs rely on it */
#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

/*
 * Device-code annotations. DPACC reads them to build the DPA program; skiff compiles device code with
 * the host compiler, where they mean nothing, and core/tools/skiff-dpacc reads them to register the
 * annotated functions in the application (the stand-in for the DPACC program, below).
 */
#ifndef __dpa_global__
#define __dpa_global__
#endif
#ifndef __dpa_rpc__
#define __dpa_rpc__
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_dev;
struct doca_sync_event;
struct doca_buf;

struct doca_dpa;
struct doca_dpa_app;
struct doca_dpa_eu_affinity;
struct doca_dpa_thread;
struct doca_dpa_thread_group;
struct doca_dpa_completion;
struct doca_dpa_notification_completion;
struct doca_dpa_async_ops;
struct doca_dpa_hash_table;

/** A pointer into DPA memory (the DPA heap). */
typedef uint64_t doca_dpa_dev_uintptr_t;
/** Device-side handles (see doca_dpa_dev.h). */
typedef uint64_t doca_dpa_dev_t;
typedef uint64_t doca_dpa_dev_completion_t;
typedef uint64_t doca_dpa_dev_notification_completion_t;
typedef uint64_t doca_dpa_dev_async_ops_t;
typedef uint64_t doca_dpa_dev_hash_table_t;

/**
 * A device function as the host names it. A kernel or DPA-thread function is really
 * `void f(uint64_t, ...)` with the argument count given at registration; an RPC function is
 * `uint64_t f(uint64_t, ...)`. Cast it to doca_dpa_func_t * to pass it.
 */
typedef void(doca_dpa_func_t)(void);

/** Most arguments a kernel or RPC function takes (each passed as one uint64_t). */
#define SKIFF_DPA_MAX_FUNC_ARGS 8
/** DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA: async-ops user data is below 2^24. */
#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA 24

/* ---- The DPA application (skiff's stand-in for the DPACC program) ---- */

/** Creates an empty application; register its device functions before doca_dpa_set_app. */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_app_create(const char *name, struct doca_dpa_app **app);
/** DOCA_ERROR_IN_USE while a DPA context uses it. */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_app_destroy(struct doca_dpa_app *app);
/**
 * Registers a kernel / DPA-thread function `void func(uint64_t x num_args)` (a DPA-thread function
 * takes exactly one argument). DOCA_ERROR_INVALID_VALUE for num_args > SKIFF_DPA_MAX_FUNC_ARGS,
 * DOCA_ERROR_ALREADY_EXIST when func is registered already, DOCA_ERROR_BAD_STATE once in use.
 */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_app_add_kernel(struct doca_dpa_app *app, doca_dpa_func_t *func,
                                                        unsigned int num_args, const char *name);
/** Registers an RPC function `uint64_t func(uint64_t x num_args)`. Same errors. */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_app_add_rpc(struct doca_dpa_app *app, doca_dpa_func_t *func,
                                                     unsigned int num_args, const char *name);

/** Bytes of argument a typed device function may take in all (its arguments laid out in order,
 *  each at its own alignment). */
#define SKIFF_DPA_ARGS_BYTES 256
/**
 * The two halves of calling a device function whose arguments have any C type (structs by value
 * included), as skiff-dpacc generates them from the function's parameter list: `capture` reads
 * the arguments from the host call's variadic list (with their real types) into `block` and
 * returns the bytes used (0 when they do not fit in `size`); `invoke` runs later, on the EU that
 * executes the function, and calls it with the arguments read back from `block` (an RPC's result
 * is its return value; a kernel's is 0).
 */
typedef size_t (*skiff_dpa_capture_fn)(va_list *ap, void *block, size_t size);
typedef uint64_t (*skiff_dpa_invoke_fn)(const void *block);
/**
 * Registers a device function with typed arguments (rpc: an RPC, else a kernel or DPA-thread
 * function). num_args is informative (a DPA-thread function takes one 64-bit argument). Errors as
 * skiff_dpa_app_add_kernel, and DOCA_ERROR_INVALID_VALUE without capture or invoke.
 */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_app_add_typed(struct doca_dpa_app *app, doca_dpa_func_t *func,
                                                       bool rpc, unsigned int num_args, const char *name,
                                                       skiff_dpa_capture_fn capture,
                                                       skiff_dpa_invoke_fn invoke);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_app_get_name(struct doca_dpa_app *app, char *app_name,
                                                     size_t *app_name_len);

/* ---- DPA context ---- */

/** DOCA_SUCCESS when the device can run the DPA (a DPU PF with the dpa capability), else NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_is_dpa_supported(const struct doca_devinfo *devinfo);
/** The DOCA 2.7+ name of the same question. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_cap_is_supported(const struct doca_devinfo *devinfo);

/** Creates a base DPA context on a PF (DOCA_ERROR_NOT_SUPPORTED for a VF/SF or a device without DPA). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);
/** Before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_set_app(struct doca_dpa *dpa, struct doca_dpa_app *app);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_app(struct doca_dpa *dpa, struct doca_dpa_app **app);
/**
 * Emulation: number of execution units (worker threads), before start. Default: SKIFF_DPA_EUS from
 * the environment, else 1. At most 64.
 */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_set_num_eus(struct doca_dpa *dpa, unsigned int num_eus);
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_get_num_eus(const struct doca_dpa *dpa, unsigned int *num_eus);
/** Starts the EUs. DOCA_ERROR_BAD_STATE without an app or when started. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_start(struct doca_dpa *dpa);
/** Stops the EUs (a running device function finishes first); threads must be stopped already. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_stop(struct doca_dpa *dpa);
/** DOCA_ERROR_IN_USE while objects (threads, completions, ..., extended contexts) exist on it. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);
/**
 * Extends a started base context to a VF or SF device; the extended context is returned started
 * and shares the base's EUs, app and heap. Destroy it (doca_dpa_destroy) before the base.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_device_extend(struct doca_dpa *dpa, struct doca_dev *other_dev,
                                                      struct doca_dpa **extended_dpa);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_dpa_handle(struct doca_dpa *dpa, doca_dpa_dev_t *handle);

/** Emulation limits: 128 threads per kernel launch; kernel run time 10 s (not enforced). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_max_threads_per_kernel(const struct doca_dpa *dpa,
                                                                   unsigned int *value);
/** The EUs as a BlueField-3 DPA has them: 16 cores of 16 EUs, 256 in all (EU ids 0..255, the
 *  ids doca_dpa_eu_affinity_set takes; the emulation runs them on its workers). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_core_num(const struct doca_dpa *dpa, unsigned int *num_cores);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_num_eus_per_core(const struct doca_dpa *dpa,
                                                             unsigned int *num_eus);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_total_num_eus_available(const struct doca_dpa *dpa,
                                                                    unsigned int *num_eus);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_kernel_max_run_time(const struct doca_dpa *dpa,
                                                                unsigned long long *value);
/** Total DPA threads of the process (thread objects + running launch threads): 256, checked. */
#define SKIFF_DPA_MAX_HW_THREADS 256

/**
 * DOCA_SUCCESS, or DOCA_ERROR_BAD_STATE once a device-side error happened (the error is fatal and
 * is never reset; a crash report was written, see doca_dpa_log_file_set_path).
 */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_peek_at_last_error(const struct doca_dpa *dpa);

/* ---- Logging and tracing ---- */

/**
 * Device log output file (default: the "dpa" spdlog logger). The crash report of a fatal error is
 * written next to it as doca_dpa_fatal.<PID>.crash (default directory /tmp).
 */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_log_file_set_path(struct doca_dpa *dpa, const char *file_path);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_log_file_get_path(struct doca_dpa *dpa, char *file_path,
                                                          uint32_t *len);
/** Device trace output file (default: none, traces are discarded). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_trace_file_set_path(struct doca_dpa *dpa, const char *file_path);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_trace_file_get_path(struct doca_dpa *dpa, char *file_path,
                                                            uint32_t *len);
/** Device log level (DOCA_DPA_DEV_LOG_LEVEL_* values, 10..60; default INFO). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_set_log_level(struct doca_dpa *dpa, int log_level);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_get_log_level(struct doca_dpa *dpa, int *log_level);

/* ---- Kernel launch and RPC ---- */

/**
 * Launches func on num_threads DPA threads (ranks 0..num_threads-1), asynchronously. With a
 * wait_event the kernel starts once its counter is greater than wait_threshold; after the last
 * thread finishes, comp_count is added to (update_add) or stored in (update_set) comp_event.
 * Arguments: as many uint64_t as func was registered with.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (func not a registered kernel, num_threads 0 or
 * above the maximum, wait_threshold or comp_count outside [0, 254], an event not started);
 * DOCA_ERROR_FULL (the 256 hardware threads would be exceeded); DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_kernel_launch_update_add(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
                                  uint64_t wait_threshold, struct doca_sync_event *comp_event,
                                  uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func, ...);
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_kernel_launch_update_set(struct doca_dpa *dpa, struct doca_sync_event *wait_event,
                                  uint64_t wait_threshold, struct doca_sync_event *comp_event,
                                  uint64_t comp_count, unsigned int num_threads, doca_dpa_func_t *func, ...);
/** Runs a registered RPC function on an EU and waits for its result (blocking). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_rpc(struct doca_dpa *dpa, doca_dpa_func_t *func, uint64_t *retval,
                                            ...);

/* ---- DPA memory ---- */

DOCA_EXPERIMENTAL doca_error_t doca_dpa_mem_alloc(struct doca_dpa *dpa, size_t size,
                                                  doca_dpa_dev_uintptr_t *dev_ptr);
/** DOCA_ERROR_INVALID_VALUE for a pointer that is not a live allocation of this context. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_mem_free(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr);
/** Copies host -> DPA heap (the text of the DOCA guide: dst is the device pointer). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_h2d_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr,
                                                   void *src_ptr, size_t size);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_d2h_memcpy(struct doca_dpa *dpa, void *dst_ptr,
                                                   doca_dpa_dev_uintptr_t src_ptr, size_t size);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_h2d_buf_memcpy(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dst_ptr,
                                                       struct doca_buf *buf, size_t size);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_d2h_buf_memcpy(struct doca_dpa *dpa, struct doca_buf *buf,
                                                       doca_dpa_dev_uintptr_t src_ptr, size_t size);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_memset(struct doca_dpa *dpa, doca_dpa_dev_uintptr_t dev_ptr,
                                               int value, size_t size);

/* ---- EU affinity ---- */

/** EU ids 0..255; the emulation runs EU id n on worker n % num_eus. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_eu_affinity_create(struct doca_dpa *dpa,
                                                           struct doca_dpa_eu_affinity **affinity);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_eu_affinity_destroy(struct doca_dpa_eu_affinity *affinity);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_eu_affinity_set(struct doca_dpa_eu_affinity *affinity,
                                                        unsigned int eu_id);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_eu_affinity_clear(struct doca_dpa_eu_affinity *affinity);
/** DOCA_ERROR_NOT_FOUND when no EU is set. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_eu_affinity_get(struct doca_dpa_eu_affinity *affinity,
                                                        unsigned int *eu_id);

/* ---- DPA threads ---- */

DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_create(struct doca_dpa *dpa, struct doca_dpa_thread **thread);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_destroy(struct doca_dpa_thread *thread);
/** func: a kernel registered with one argument. Before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_set_func_arg(struct doca_dpa_thread *thread,
                                                            doca_dpa_func_t *func, uint64_t arg);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_get_func_arg(struct doca_dpa_thread *thread,
                                                            doca_dpa_func_t **func, uint64_t *arg);
/** The affinity is copied. Before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_set_affinity(struct doca_dpa_thread *thread,
                                                            const struct doca_dpa_eu_affinity *affinity);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_get_affinity(struct doca_dpa_thread *thread,
                                                            struct doca_dpa_eu_affinity *affinity);
/** dev_ptr: DPA heap memory of this context (DOCA_ERROR_INVALID_VALUE otherwise). Before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_set_local_storage(struct doca_dpa_thread *thread,
                                                                 doca_dpa_dev_uintptr_t dev_ptr);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_get_local_storage(struct doca_dpa_thread *thread,
                                                                 doca_dpa_dev_uintptr_t *dev_ptr);
/** DOCA_ERROR_BAD_STATE without set_func_arg. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_start(struct doca_dpa_thread *thread);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_stop(struct doca_dpa_thread *thread);
/**
 * Lets the thread be triggered. DOCA_ERROR_BAD_STATE unless started and every completion context
 * attached to it is started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_run(struct doca_dpa_thread *thread);

/* ---- Thread groups ---- */

DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_group_create(struct doca_dpa *dpa, unsigned int num_threads,
                                                            struct doca_dpa_thread_group **thread_group);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_group_destroy(struct doca_dpa_thread_group *thread_group);
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_thread_group_get_num_threads(struct doca_dpa_thread_group *thread_group, unsigned int *num_threads);
/** rank in 0..num_threads-1; before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_group_set_thread(struct doca_dpa_thread_group *thread_group,
                                                                struct doca_dpa_thread *thread,
                                                                unsigned int rank);
/** DOCA_ERROR_BAD_STATE unless every rank has a started thread. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_group_start(struct doca_dpa_thread_group *thread_group);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_thread_group_stop(struct doca_dpa_thread_group *thread_group);

/* ---- Completion contexts ---- */

/** queue_size 1..65536. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_create(struct doca_dpa *dpa, unsigned int queue_size,
                                                          struct doca_dpa_completion **comp);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_destroy(struct doca_dpa_completion *comp);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_get_queue_size(struct doca_dpa_completion *comp,
                                                                  unsigned int *queue_size);
/** The thread must be on the same (extended) context. Before start. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_set_thread(struct doca_dpa_completion *comp,
                                                              struct doca_dpa_thread *thread);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_get_thread(struct doca_dpa_completion *comp,
                                                              struct doca_dpa_thread **thread);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_start(struct doca_dpa_completion *comp);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_stop(struct doca_dpa_completion *comp);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_completion_get_dpa_handle(struct doca_dpa_completion *comp,
                                                                  doca_dpa_dev_completion_t *handle);
/**
 * Emulation: what hardware does when an operation completes: appends one element (type, user
 * data, immediate) to a started completion context. Safe from any thread. Used by skiff's own
 * completion producers (async ops, RDMA on the DPA) and by tests; a full queue puts the DPA in the
 * error state (DOCA_ERROR_FULL is returned).
 */
DOCA_EXPERIMENTAL doca_error_t skiff_dpa_completion_post(struct doca_dpa_completion *comp, uint32_t type,
                                                         uint32_t user_data, uint32_t immediate);

/* ---- Notification completions ---- */

DOCA_EXPERIMENTAL doca_error_t doca_dpa_notification_completion_create(
    struct doca_dpa *dpa, struct doca_dpa_thread *thread, struct doca_dpa_notification_completion **nc);
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_notification_completion_destroy(struct doca_dpa_notification_completion *nc);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_notification_completion_get_thread(
    struct doca_dpa_notification_completion *nc, struct doca_dpa_thread **thread);
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_notification_completion_start(struct doca_dpa_notification_completion *nc);
DOCA_EXPERIMENTAL doca_error_t
doca_dpa_notification_completion_stop(struct doca_dpa_notification_completion *nc);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_notification_completion_get_dpa_handle(
    struct doca_dpa_notification_completion *nc, doca_dpa_dev_notification_completion_t *handle);

/* ---- Async ops ---- */

/** queue_size 1..65536; user_data below 2^24 (echoed in every completion). */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_create(struct doca_dpa *dpa, unsigned int queue_size,
                                                         uint64_t user_data,
                                                         struct doca_dpa_async_ops **async_ops);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_destroy(struct doca_dpa_async_ops *async_ops);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_get_queue_size(struct doca_dpa_async_ops *async_ops,
                                                                 unsigned int *queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_get_user_data(struct doca_dpa_async_ops *async_ops,
                                                                uint64_t *user_data);
/** Required before start; same context. */
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_attach(struct doca_dpa_async_ops *async_ops,
                                                         struct doca_dpa_completion *comp);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_start(struct doca_dpa_async_ops *async_ops);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_stop(struct doca_dpa_async_ops *async_ops);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_async_ops_get_dpa_handle(struct doca_dpa_async_ops *async_ops,
                                                                 doca_dpa_dev_async_ops_t *handle);

/* ---- Hash table ---- */

DOCA_EXPERIMENTAL doca_error_t doca_dpa_hash_table_create(struct doca_dpa *dpa, unsigned int num_entries,
                                                          struct doca_dpa_hash_table **ht);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_hash_table_destroy(struct doca_dpa_hash_table *ht);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_hash_table_get_dpa_handle(struct doca_dpa_hash_table *ht,
                                                                  doca_dpa_dev_hash_table_t *handle);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_H_ */
