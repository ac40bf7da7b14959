/*
 * skiff core: DOCA sync event, a 64-bit counter shared by CPU, DPU, DPA and GPU that can be
 * updated, read and waited on. A sync event is used either standalone (doca_sync_event_start) or as
 * a ctx connected to a progress engine (doca_sync_event_as_ctx, tasks below), never both.
 * Publishers and subscribers are declared before start.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;

struct doca_sync_event;
/** A peer's sync event, reached over RDMA (doca_sync_event_remote_net_create_from_export). */
struct doca_sync_event_remote_net;

/** A sync event as DPA code names it (doca_dpa_dev_sync_event.h). */
typedef uint64_t doca_dpa_dev_sync_event_t;
/** A peer's sync event as DPA code names it (doca_dpa_dev_rdma_signal_set / _add). */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;

struct doca_sync_event_task_get;
struct doca_sync_event_task_notify_set;
struct doca_sync_event_task_notify_add;
struct doca_sync_event_task_wait_gt;
struct doca_sync_event_task_wait_eq;

typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
                                                         union doca_data task_user_data,
                                                         union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
                                                                union doca_data task_user_data,
                                                                union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
                                                                union doca_data task_user_data,
                                                                union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
                                                             union doca_data task_user_data,
                                                             union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_gt_completion_cb_t)(struct doca_sync_event_task_wait_gt *task,
                                                             union doca_data task_user_data,
                                                             union doca_data ctx_user_data);

/**
 * Whether a device supports the sync event tasks (every skiff device does: the tasks run on the CPU).
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for a NULL devinfo.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_gt_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);

/** Creates a CPU sync event with value 0. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/** @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_IN_USE (used as a ctx that is not IDLE). */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/** Publisher / subscriber locations; before start only (DOCA_ERROR_BAD_STATE afterwards). */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
/** DPA locations need a DPA context; GPU locations: DOCA_ERROR_NOT_SUPPORTED in this build. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_dpu(struct doca_sync_event *event);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_subscriber_location_dpu(struct doca_sync_event *event);

/**
 * Uses the caller's 8-byte aligned 64-bit location as the counter. Before start only.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL or misaligned), DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/**
 * Starts the event as a standalone object.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (no publisher or no subscriber declared),
 * DOCA_ERROR_BAD_STATE (already started), DOCA_ERROR_NOT_PERMITTED (already used as a ctx).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_start(struct doca_sync_event *event);

/** Stops a standalone event (DOCA_ERROR_BAD_STATE if it is not started). */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/** The event as a ctx; NULL once it was started standalone. */
DOCA_EXPERIMENTAL
struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/**
 * Synchronous operations; allowed while started (standalone) or RUNNING (as a ctx), else
 * DOCA_ERROR_BAD_STATE. update_add is an atomic fetch-add.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/**
 * Waits until (counter & mask) > value. mask is 0 (compare the whole counter) or a naturally
 * aligned run of 1, 2, 4 or 8 0xFF bytes (e.g. 0xFF, 0xFF00, 0xFFFF0000, UINT64_MAX); anything else
 * is DOCA_ERROR_INVALID_VALUE. doca_sync_event_wait_gt spins briefly and then sleeps on a futex
 * until an update arrives; doca_sync_event_wait_gt_yield polls with sched_yield.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);
/** Like wait_gt / wait_gt_yield, until (counter & mask) == value. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value, uint64_t mask);

/*
 * Tasks of a sync event used as a ctx. set_conf: IDLE only (DOCA_ERROR_BAD_STATE otherwise);
 * alloc_init: RUNNING only, DOCA_ERROR_NO_MEMORY when the pool is exhausted.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
                                               doca_sync_event_task_get_completion_cb_t completion_cb,
                                               doca_sync_event_task_get_completion_cb_t error_cb,
                                               uint32_t num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
                                                 union doca_data user_data,
                                                 struct doca_sync_event_task_get **task);
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task, uint64_t *ret_val_ptr);
DOCA_EXPERIMENTAL
uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_notify_set_completion_cb_t completion_cb,
    doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
                                                        union doca_data user_data,
                                                        struct doca_sync_event_task_notify_set **task);
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_set_as_doca_task(struct doca_sync_event_task_notify_set *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
                                                 uint64_t set_val);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_set_conf(
    struct doca_sync_event *event, doca_sync_event_task_notify_add_completion_cb_t completion_cb,
    doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
                                                        uint64_t *fetched_val_ptr, union doca_data user_data,
                                                        struct doca_sync_event_task_notify_add **task);
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_notify_add_as_doca_task(struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
                                                 uint64_t inc_val);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
                                                         uint64_t *fetched_val_ptr);
DOCA_EXPERIMENTAL
uint64_t *
doca_sync_event_task_notify_add_get_fetched_val_ptr(const struct doca_sync_event_task_notify_add *task);

/** wait_gt tasks complete (inside progress) once (counter & mask) > wait_val. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_gt_set_conf(struct doca_sync_event *event,
                                                   doca_sync_event_task_wait_gt_completion_cb_t completion_cb,
                                                   doca_sync_event_task_wait_gt_completion_cb_t error_cb,
                                                   uint32_t num_tasks);
/** @return also DOCA_ERROR_INVALID_VALUE for a mask that doca_sync_event_wait_gt refuses. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_gt_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
                                                     uint64_t mask, union doca_data user_data,
                                                     struct doca_sync_event_task_wait_gt **task);
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_gt_as_doca_task(struct doca_sync_event_task_wait_gt *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_gt_set_wait_val(struct doca_sync_event_task_wait_gt *task, uint64_t wait_val);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_gt_get_wait_val(const struct doca_sync_event_task_wait_gt *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_gt_set_mask(struct doca_sync_event_task_wait_gt *task, uint64_t mask);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_gt_get_mask(const struct doca_sync_event_task_wait_gt *task);

/** wait_eq tasks complete (inside progress) once (counter & mask) == wait_val; same rules as wait_gt. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_set_conf(struct doca_sync_event *event,
                                                   doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
                                                   doca_sync_event_task_wait_eq_completion_cb_t error_cb,
                                                   uint32_t num_tasks);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
                                                     uint64_t mask, union doca_data user_data,
                                                     struct doca_sync_event_task_wait_eq **task);
DOCA_EXPERIMENTAL
struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task, uint64_t wait_val);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL
void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);
DOCA_EXPERIMENTAL
uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

/*
 * Remote PCI (host <-> DPU): the publisher declares a remote-PCI location before start, starts the
 * event and exports it; the other side creates its own event from the descriptor (then starts it
 * and uses it like any event: get/update/wait, or as a ctx). skiff runs both sides on one machine:
 * the counter lives in a shared memory page that the importing process maps, so the importer must
 * run as the same user as the exporter, which must stay alive. Waiters on the importing side see
 * an update by the other process within one sleep slice (1 ms); a PE in notification mode is not
 * woken by it (poll, or update locally).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);
/** Before start. DOCA_ERROR_NOT_SUPPORTED for an event that uses doca_sync_event_set_addr. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);
/**
 * The descriptor (valid until the event is destroyed). DOCA_ERROR_NOT_PERMITTED without a
 * remote-PCI publisher, DOCA_ERROR_BAD_STATE before start.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
                                                  const uint8_t **data, size_t *sz);
/**
 * A new event sharing the exported counter; destroy it with doca_sync_event_destroy.
 * DOCA_ERROR_INVALID_VALUE (not a descriptor), DOCA_ERROR_NOT_FOUND (the exporter is gone or not
 * reachable).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
                                                struct doca_sync_event **event);

/**
 * The event's handle for DPA code on dpa. The event must be started (standalone) and have a DPA
 * publisher or subscriber location.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (not started),
 * DOCA_ERROR_NOT_PERMITTED (no DPA location).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
                                            doca_dpa_dev_sync_event_t *dpa_dev_se_handle);

/* ---- Remote net: a peer updates the counter over RDMA (DPA comms: doca_dpa_dev_rdma_signal_*).
 * The exporting side declares a remote-net publisher and a CPU location whose device has RDMA
 * (the counter is registered there), starts the event and exports it; the peer creates a
 * doca_sync_event_remote_net from the descriptor and hands its DPA handle to device code. A
 * remote update is a plain RDMA write or atomic on the counter: CPU waiters see it (they re-read
 * the counter every sleep slice, 1 ms at most), DPA waits blocked on the event are retried only by
 * local updates. */

/** Before start only (DOCA_ERROR_BAD_STATE afterwards). */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);
/**
 * The descriptor a peer imports (valid until the event is destroyed).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (not started standalone),
 * DOCA_ERROR_NOT_PERMITTED (no remote-net publisher), DOCA_ERROR_NOT_SUPPORTED (no CPU location
 * on a device with RDMA, or built without rdma-core).
 */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data,
                                                  size_t *sz);
/** DOCA_ERROR_INVALID_VALUE for a descriptor that is not one of doca_sync_event_export_to_remote_net. */
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data,
                                                           size_t sz,
                                                           struct doca_sync_event_remote_net **event);
DOCA_EXPERIMENTAL
doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);
/** The handle device code passes to doca_dpa_dev_rdma_signal_set / _add. */
DOCA_EXPERIMENTAL
doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
                                          doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
