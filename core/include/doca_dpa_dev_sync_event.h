/*
 * skiff core: DOCA DPA device side, sync events. Values a DPA waits for must lie in [0, 254]; a
 * wait outside it is the fatal error (doca_dpa_peek_at_last_error).
 */
#ifndef DOCA_DPA_DEV_SYNC_EVENT_H_
#define DOCA_DPA_DEV_SYNC_EVENT_H_

#include <doca_dpa_dev.h>
#include <doca_sync_event.h>

#ifdef __cplusplus
extern "C" {
#endif

DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t dpa_dev_se_handle,
                                                   uint64_t *value);
DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t dpa_dev_se_handle,
                                                          uint64_t value);
DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t dpa_dev_se_handle,
                                                          uint64_t value);
/** Blocks the EU until (counter & mask) > value (mask 0: whole counter). */
DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t dpa_dev_se_handle,
                                                       uint64_t value, uint64_t mask);
/** Async: completes (and so can trigger the attached thread) once counter > value / counter != value. */
DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_post_wait_gt(doca_dpa_dev_async_ops_t async_ops_handle,
                                                            doca_dpa_dev_sync_event_t wait_se_handle,
                                                            uint64_t value);
DOCA_EXPERIMENTAL void doca_dpa_dev_sync_event_post_wait_ne(doca_dpa_dev_async_ops_t async_ops_handle,
                                                            doca_dpa_dev_sync_event_t wait_se_handle,
                                                            uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_SYNC_EVENT_H_ */
