/*
 * skiff core: DOCA DPA device side, RDMA (DPA comms, spec 1.20). The handle comes from
 * doca_rdma_get_dpa_handle on a doca_rdma started on the DPA data path; connection ids from
 * doca_rdma_connection_get_id. Names and signatures follow DOCA 2.x.
 *
 * Posts are non-blocking. A send-queue operation without DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH may wait
 * for the next FLUSH (skiff keeps it until then, or until the send queue size is reached); one
 * with DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS raises no completion of its own (it is reported
 * by the next completion of its connection). Completions go to the DPA completion context
 * attached to the RDMA ctx: SEND (or SEND_ERR) for send-queue operations, RECV_SEND /
 * RECV_SEND_IMM / RECV_RDMA_WRITE_IMM (or RECV_ERR) for receives; user data = the connection id,
 * immediate = the value the peer posted.
 *
 * Addresses: the local side names an mmap of this process (doca_mmap_dev_get_dpa_handle) and an
 * address in it; the remote side of read / write / atomics names an mmap created from the peer's
 * RDMA export (doca_mmap_export_rdma; atomics need DOCA_ACCESS_FLAG_RDMA_ATOMIC there). A bad
 * address or connection id fails the operation with an error completion. A handle is not
 * thread-safe: two DPA threads or kernels using it at once is the fatal error in debug builds.
 */
#ifndef DOCA_DPA_DEV_RDMA_H_
#define DOCA_DPA_DEV_RDMA_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_sync_event.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SKIFF_DOCA_DPA_DEV_RDMA_T
#define SKIFF_DOCA_DPA_DEV_RDMA_T
/** A doca_rdma on the DPA data path (doca_rdma_get_dpa_handle). */
typedef uint64_t doca_dpa_dev_rdma_t;
#endif

DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                   doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                                   doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr,
                                                   size_t length, uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                       doca_dpa_dev_buf_t dst_buf_handle,
                                                       doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                    doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
                                                    doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr,
                                                    size_t length, uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                        doca_dpa_dev_buf_t dst_buf_handle,
                                                        doca_dpa_dev_buf_t src_buf_handle, uint32_t flags);

DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                        doca_dpa_dev_mmap_t dst_mmap_handle,
                                                        uint64_t dst_addr,
                                                        doca_dpa_dev_mmap_t src_mmap_handle,
                                                        uint64_t src_addr, size_t length, uint32_t immediate,
                                                        uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                            doca_dpa_dev_buf_t dst_buf_handle,
                                                            doca_dpa_dev_buf_t src_buf_handle,
                                                            uint32_t immediate, uint32_t flags);

DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                   doca_dpa_dev_mmap_t mmap_handle, uint64_t addr,
                                                   size_t length, uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                       doca_dpa_dev_buf_t send_buf_handle, uint32_t flags);

DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                       doca_dpa_dev_mmap_t mmap_handle, uint64_t addr,
                                                       size_t length, uint32_t immediate, uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                           doca_dpa_dev_buf_t send_buf_handle,
                                                           uint32_t immediate, uint32_t flags);

/**
 * Posts a receive buffer to the ctx's receive queue (any connection may fill it). A receive entry
 * stays taken until doca_dpa_dev_rdma_receive_ack releases it: more than the ctx's receive queue
 * size posted and not acknowledged is the fatal error.
 */
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_receive(doca_dpa_dev_rdma_t rdma,
                                                      doca_dpa_dev_mmap_t mmap_handle, uint64_t addr,
                                                      size_t length);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_receive(doca_dpa_dev_rdma_t rdma,
                                                          doca_dpa_dev_buf_t receive_buf_handle);
/** Releases num_acked receive entries (more than were posted is the fatal error). */
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_receive_ack(doca_dpa_dev_rdma_t rdma, uint32_t num_acked);

/** The work-request index (0, 1, 2 ... per handle, in post order) behind an RDMA completion. */
DOCA_EXPERIMENTAL uint32_t
doca_dpa_dev_rdma_completion_get_wr_index(doca_dpa_dev_completion_element_t comp_element);

/** Adds value to the remote 64-bit word (8-byte aligned); the previous value is not returned. */
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_atomic_fetch_add(doca_dpa_dev_rdma_t rdma,
                                                               uint32_t connection_id,
                                                               doca_dpa_dev_mmap_t dst_mmap_handle,
                                                               uint64_t dst_addr, uint64_t value,
                                                               uint32_t flags);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_post_buf_atomic_fetch_add(doca_dpa_dev_rdma_t rdma,
                                                                   uint32_t connection_id,
                                                                   doca_dpa_dev_buf_t dst_buf_handle,
                                                                   uint64_t value, uint32_t flags);

/**
 * Sets / atomically adds to the counter of the peer's sync event (a doca_sync_event_remote_net's
 * DPA handle). Issued at once; the completion is SEND (or SEND_ERR).
 */
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_signal_set(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                    doca_dpa_dev_sync_event_remote_net_t remote_sync_event,
                                                    uint64_t count);
DOCA_EXPERIMENTAL void doca_dpa_dev_rdma_signal_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
                                                    doca_dpa_dev_sync_event_remote_net_t remote_sync_event,
                                                    uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DPA_DEV_RDMA_H_ */
