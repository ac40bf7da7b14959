/*
 * doca_rdma.h — the DOCA 2.x RDMA context of libskiff-core, over rdma-core (librdmacm +
 * libibverbs). Connections are made through RDMA-CM (listen / connect_to_addr, with callbacks) or
 * without it (doca_rdma_export on both sides, exchange the descriptors, doca_rdma_connect); every
 * RDMA-CM event (connection request, established, failure, disconnect) and every task completion is
 * delivered inside doca_pe_progress(). Names and signatures follow DOCA 2.x; only the calls listed here
 * exist.
 *
 * skiff extension: skiff_rdma_connect_to_addr_with_private_data() sends private data with the
 * connection request; doca_rdma_connection_get_private_data() returns it to the server's
 * request callback.
 */
#ifndef DOCA_RDMA_H_
#define DOCA_RDMA_H_

#include <stdint.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_rdma;
struct doca_rdma_connection;
struct doca_rdma_addr;

/** Address kinds of doca_rdma_addr_create. */
enum doca_rdma_addr_type {
    DOCA_RDMA_ADDR_TYPE_IPv4,
    DOCA_RDMA_ADDR_TYPE_IPv6,
    DOCA_RDMA_ADDR_TYPE_GID,
};

/** Queue pair types. skiff has RC only (DC needs mlx5 DCT/DCI, absent from generic verbs). */
enum doca_rdma_transport_type {
    DOCA_RDMA_TRANSPORT_TYPE_RC = 0,
    DOCA_RDMA_TRANSPORT_TYPE_DC = 1,
};

/** What a receive task received. */
enum doca_rdma_opcode {
    DOCA_RDMA_OPCODE_RECV_SEND = 0,
    DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM,
    DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM,
};

/* ---- context */
/* NOT_SUPPORTED when the device has no RDMA (or rdma-core was absent at build time). */
doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);
/* BAD_STATE unless the ctx is IDLE. */
doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);
struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);

/* ---- properties (IDLE only: BAD_STATE otherwise) */
/* RDMA access flags only (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, _RDMA_READ, _RDMA_WRITE, _RDMA_ATOMIC). */
doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);
doca_error_t doca_rdma_get_permissions(const struct doca_rdma *rdma, uint32_t *permissions);
doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);
doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *rdma, uint32_t *gid_index);
/* Rounded up to a power of two. */
doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size);
doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *rdma, uint32_t *send_queue_size);
doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);
doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size);
doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);
doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections);
/* RC only: DC is NOT_SUPPORTED. */
doca_error_t doca_rdma_set_transport_type(struct doca_rdma *rdma,
                                          enum doca_rdma_transport_type transport_type);
doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *rdma,
                                          enum doca_rdma_transport_type *transport_type);
doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
                                                       enum doca_rdma_transport_type transport_type);
/* export / connect: use a GRH on the path even on InfiniBand (RoCE always has one). Default off. */
doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);
doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *rdma, uint8_t *grh_enabled);
/* Most buffers in a receive task's destination list (1..16, default 1): the receive fills them in order. */
doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len);
doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *rdma,
                                                         uint32_t *buf_list_len);

/* ---- capabilities: DOCA_SUCCESS when the device has RDMA (every task runs over verbs),
 * NOT_SUPPORTED otherwise, INVALID_VALUE for NULL. */
doca_error_t doca_rdma_cap_task_receive_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_send_imm_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_read_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_write_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_write_imm_is_supported(const struct doca_devinfo *devinfo);
doca_error_t doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const struct doca_devinfo *devinfo);
doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const struct doca_devinfo *devinfo);
doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const struct doca_devinfo *devinfo);

/* ---- connections without RDMA-CM (RUNNING). Each side exports (a new connection with its QP, and
 * a descriptor valid until the connection is released), the descriptors are exchanged by any
 * means, then each side connects its connection to the peer's descriptor: the QP goes to RTR and
 * RTS and the connection is usable at once (no callbacks). The descriptor is skiff's own format. */
doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
                              size_t *local_rdma_conn_details_size,
                              struct doca_rdma_connection **rdma_connection);
/* BAD_STATE for a connection that was not exported or is connected already; INVALID_VALUE for a
 * descriptor that is not one. */
doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
                               size_t remote_rdma_conn_details_size,
                               struct doca_rdma_connection *rdma_connection);

/* ---- connections (RDMA-CM) */
typedef void (*doca_rdma_connection_request_cb_t)(struct doca_rdma_connection *rdma_connection,
                                                  union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_established_cb_t)(struct doca_rdma_connection *rdma_connection,
                                                      union doca_data connection_user_data,
                                                      union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_failure_cb_t)(struct doca_rdma_connection *rdma_connection,
                                                  union doca_data connection_user_data,
                                                  union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_disconnection_cb_t)(struct doca_rdma_connection *rdma_connection,
                                                        union doca_data connection_user_data,
                                                        union doca_data ctx_user_data);
/* IDLE only. The request callback may be NULL for a client. */
doca_error_t doca_rdma_set_connection_state_callbacks(
    struct doca_rdma *rdma, doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
    doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
    doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
    doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb);

doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address, uint16_t port,
                                   struct doca_rdma_addr **addr);
doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr);

/* RUNNING only. */
doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port);
doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
                                       union doca_data connection_user_data);
/* skiff extension: the same, with up to 56 bytes of private data in the connection request. */
doca_error_t skiff_rdma_connect_to_addr_with_private_data(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
                                                          union doca_data connection_user_data,
                                                          const void *private_data, uint8_t private_data_len);
/* Inside (or after) the request callback: the private data the client sent (len 0 when none). */
doca_error_t doca_rdma_connection_get_private_data(const struct doca_rdma_connection *rdma_connection,
                                                   const void **private_data, uint8_t *private_data_len);
/* Answers a connection request; accept carries up to 196 bytes of private data. */
doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection, void *private_data,
                                         uint8_t private_data_len);
doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection);
doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection);
doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
                                                union doca_data connection_user_data);
doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
                                                union doca_data *connection_user_data);
/* Stable small number (slot of the connection in its context), for DPA-side routing. */
doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
                                         uint32_t *connection_id);

/* ---- DPA data path (spec 1.20). Order: doca_ctx_set_datapath_on_dpa(doca_rdma_as_ctx(rdma), dpa),
 * doca_rdma_dpa_completion_attach, doca_ctx_start, doca_rdma_get_dpa_handle, then
 * doca_rdma_connection_get_id for each connection. Device code then posts with the
 * doca_dpa_dev_rdma_* calls (doca_dpa_dev_rdma.h); every work completion goes to the attached DPA
 * completion context (user data = connection id). Host tasks are then NOT_SUPPORTED, and a closed
 * connection's slot is reused only after the ctx stops. Stop the DPA threads that use the handle
 * before stopping the ctx. */
struct doca_dpa_completion;
#ifndef SKIFF_DOCA_DPA_DEV_RDMA_T
#define SKIFF_DOCA_DPA_DEV_RDMA_T
/** A doca_rdma on the DPA data path as device code names it. */
typedef uint64_t doca_dpa_dev_rdma_t;
#endif
/* IDLE only, after doca_ctx_set_datapath_on_dpa (BAD_STATE otherwise); the completion context must be
 * on the same (extended) DPA context (INVALID_VALUE otherwise). Start the completion context before
 * the RDMA ctx. */
doca_error_t doca_rdma_dpa_completion_attach(struct doca_rdma *rdma, struct doca_dpa_completion *dpa_comp);
/* RUNNING on the DPA data path, else BAD_STATE. */
doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);

/* ---- tasks. Local bufs come from mmaps with the context's device; the remote buf of read and
 * write comes from an mmap created from an RDMA export (doca_mmap_export_rdma). The setters
 * retarget a task that is not in flight (a completed task may be resubmitted with new bufs, a new
 * immediate or another connection); they check nothing, as submit does not. */
struct doca_rdma_task_receive;
struct doca_rdma_task_send;
struct doca_rdma_task_send_imm;
struct doca_rdma_task_read;
struct doca_rdma_task_write;
struct doca_rdma_task_write_imm;

typedef void (*doca_rdma_task_receive_completion_cb_t)(struct doca_rdma_task_receive *task,
                                                       union doca_data task_user_data,
                                                       union doca_data ctx_user_data);
typedef void (*doca_rdma_task_send_completion_cb_t)(struct doca_rdma_task_send *task,
                                                    union doca_data task_user_data,
                                                    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_send_imm_completion_cb_t)(struct doca_rdma_task_send_imm *task,
                                                        union doca_data task_user_data,
                                                        union doca_data ctx_user_data);
typedef void (*doca_rdma_task_read_completion_cb_t)(struct doca_rdma_task_read *task,
                                                    union doca_data task_user_data,
                                                    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_write_completion_cb_t)(struct doca_rdma_task_write *task,
                                                     union doca_data task_user_data,
                                                     union doca_data ctx_user_data);
typedef void (*doca_rdma_task_write_imm_completion_cb_t)(struct doca_rdma_task_write_imm *task,
                                                         union doca_data task_user_data,
                                                         union doca_data ctx_user_data);

doca_error_t doca_rdma_task_receive_set_conf(
    struct doca_rdma *rdma, doca_rdma_task_receive_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_receive_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
doca_error_t doca_rdma_task_send_set_conf(struct doca_rdma *rdma,
                                          doca_rdma_task_send_completion_cb_t successful_task_completion_cb,
                                          doca_rdma_task_send_completion_cb_t error_task_completion_cb,
                                          uint32_t num_tasks);
doca_error_t doca_rdma_task_send_imm_set_conf(
    struct doca_rdma *rdma, doca_rdma_task_send_imm_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_send_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
doca_error_t doca_rdma_task_read_set_conf(struct doca_rdma *rdma,
                                          doca_rdma_task_read_completion_cb_t successful_task_completion_cb,
                                          doca_rdma_task_read_completion_cb_t error_task_completion_cb,
                                          uint32_t num_tasks);
doca_error_t doca_rdma_task_write_set_conf(struct doca_rdma *rdma,
                                           doca_rdma_task_write_completion_cb_t successful_task_completion_cb,
                                           doca_rdma_task_write_completion_cb_t error_task_completion_cb,
                                           uint32_t num_tasks);
doca_error_t doca_rdma_task_write_imm_set_conf(
    struct doca_rdma *rdma, doca_rdma_task_write_imm_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_write_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);

/* Receive: posted to the context's shared receive queue; any connection may fill it. dst_buf may
 * be NULL for a receive that only takes an immediate (a write with immediate, a send of 0 bytes). */
doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
                                                  union doca_data user_data,
                                                  struct doca_rdma_task_receive **task);
struct doca_task *doca_rdma_task_receive_as_task(struct doca_rdma_task_receive *task);
struct doca_buf *doca_rdma_task_receive_get_dst_buf(const struct doca_rdma_task_receive *task);
enum doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task);
doca_be32_t doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task);
const struct doca_rdma_connection *
doca_rdma_task_receive_get_result_rdma_connection(const struct doca_rdma_task_receive *task);
/* Retargets a receive task (not in flight) to another destination. */
void doca_rdma_task_receive_set_dst_buf(struct doca_rdma_task_receive *task, struct doca_buf *dst_buf);
/* Bytes the completed receive took (of a send, or of the write whose immediate it carries). */
uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task);

doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma,
                                               struct doca_rdma_connection *rdma_connection,
                                               const struct doca_buf *src_buf, union doca_data user_data,
                                               struct doca_rdma_task_send **task);
struct doca_task *doca_rdma_task_send_as_task(struct doca_rdma_task_send *task);
const struct doca_buf *doca_rdma_task_send_get_src_buf(const struct doca_rdma_task_send *task);
void doca_rdma_task_send_set_src_buf(struct doca_rdma_task_send *task, const struct doca_buf *src_buf);
void doca_rdma_task_send_set_rdma_connection(struct doca_rdma_task_send *task,
                                             struct doca_rdma_connection *rdma_connection);
const struct doca_rdma_connection *
doca_rdma_task_send_get_rdma_connection(const struct doca_rdma_task_send *task);

doca_error_t doca_rdma_task_send_imm_allocate_init(struct doca_rdma *rdma,
                                                   struct doca_rdma_connection *rdma_connection,
                                                   const struct doca_buf *src_buf, doca_be32_t immediate_data,
                                                   union doca_data user_data,
                                                   struct doca_rdma_task_send_imm **task);
struct doca_task *doca_rdma_task_send_imm_as_task(struct doca_rdma_task_send_imm *task);
void doca_rdma_task_send_imm_set_src_buf(struct doca_rdma_task_send_imm *task,
                                         const struct doca_buf *src_buf);
const struct doca_buf *doca_rdma_task_send_imm_get_src_buf(const struct doca_rdma_task_send_imm *task);
void doca_rdma_task_send_imm_set_immediate_data(struct doca_rdma_task_send_imm *task,
                                                doca_be32_t immediate_data);
doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const struct doca_rdma_task_send_imm *task);
void doca_rdma_task_send_imm_set_rdma_connection(struct doca_rdma_task_send_imm *task,
                                                 struct doca_rdma_connection *rdma_connection);
const struct doca_rdma_connection *
doca_rdma_task_send_imm_get_rdma_connection(const struct doca_rdma_task_send_imm *task);

/* Read: src_buf is remote (imported RDMA export), dst_buf local. */
doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma,
                                               struct doca_rdma_connection *rdma_connection,
                                               const struct doca_buf *src_buf, struct doca_buf *dst_buf,
                                               union doca_data user_data, struct doca_rdma_task_read **task);
struct doca_task *doca_rdma_task_read_as_task(struct doca_rdma_task_read *task);
struct doca_buf *doca_rdma_task_read_get_dst_buf(const struct doca_rdma_task_read *task);
void doca_rdma_task_read_set_src_buf(struct doca_rdma_task_read *task, const struct doca_buf *src_buf);
const struct doca_buf *doca_rdma_task_read_get_src_buf(const struct doca_rdma_task_read *task);
void doca_rdma_task_read_set_dst_buf(struct doca_rdma_task_read *task, struct doca_buf *dst_buf);
/* Bytes the completed read brought into dst_buf. */
uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task);
void doca_rdma_task_read_set_rdma_connection(struct doca_rdma_task_read *task,
                                             struct doca_rdma_connection *rdma_connection);
const struct doca_rdma_connection *
doca_rdma_task_read_get_rdma_connection(const struct doca_rdma_task_read *task);

/* Write: src_buf local, dst_buf remote (imported RDMA export). */
doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma,
                                                struct doca_rdma_connection *rdma_connection,
                                                const struct doca_buf *src_buf, struct doca_buf *dst_buf,
                                                union doca_data user_data,
                                                struct doca_rdma_task_write **task);
struct doca_task *doca_rdma_task_write_as_task(struct doca_rdma_task_write *task);
void doca_rdma_task_write_set_src_buf(struct doca_rdma_task_write *task, const struct doca_buf *src_buf);
const struct doca_buf *doca_rdma_task_write_get_src_buf(const struct doca_rdma_task_write *task);
void doca_rdma_task_write_set_dst_buf(struct doca_rdma_task_write *task, struct doca_buf *dst_buf);
struct doca_buf *doca_rdma_task_write_get_dst_buf(const struct doca_rdma_task_write *task);
void doca_rdma_task_write_set_rdma_connection(struct doca_rdma_task_write *task,
                                              struct doca_rdma_connection *rdma_connection);
const struct doca_rdma_connection *
doca_rdma_task_write_get_rdma_connection(const struct doca_rdma_task_write *task);

doca_error_t doca_rdma_task_write_imm_allocate_init(struct doca_rdma *rdma,
                                                    struct doca_rdma_connection *rdma_connection,
                                                    const struct doca_buf *src_buf, struct doca_buf *dst_buf,
                                                    doca_be32_t immediate_data, union doca_data user_data,
                                                    struct doca_rdma_task_write_imm **task);
struct doca_task *doca_rdma_task_write_imm_as_task(struct doca_rdma_task_write_imm *task);
void doca_rdma_task_write_imm_set_src_buf(struct doca_rdma_task_write_imm *task,
                                          const struct doca_buf *src_buf);
const struct doca_buf *doca_rdma_task_write_imm_get_src_buf(const struct doca_rdma_task_write_imm *task);
void doca_rdma_task_write_imm_set_dst_buf(struct doca_rdma_task_write_imm *task, struct doca_buf *dst_buf);
struct doca_buf *doca_rdma_task_write_imm_get_dst_buf(const struct doca_rdma_task_write_imm *task);
void doca_rdma_task_write_imm_set_immediate_data(struct doca_rdma_task_write_imm *task,
                                                 doca_be32_t immediate_data);
doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const struct doca_rdma_task_write_imm *task);
void doca_rdma_task_write_imm_set_rdma_connection(struct doca_rdma_task_write_imm *task,
                                                  struct doca_rdma_connection *rdma_connection);
const struct doca_rdma_connection *
doca_rdma_task_write_imm_get_rdma_connection(const struct doca_rdma_task_write_imm *task);

/* ---- remote-net sync events (the peer's doca_sync_event_export_to_remote_net, imported with
 * doca_sync_event_remote_net_create_from_export): an 8-byte RDMA read (get, into the tail of
 * dst_buf), write (notify_set, the first 8 bytes of src_buf's data) or fetch-and-add (notify_add,
 * the value before the add lands in the tail of result_buf). */
struct doca_sync_event_remote_net;
struct doca_rdma_task_remote_net_sync_event_get;
struct doca_rdma_task_remote_net_sync_event_notify_set;
struct doca_rdma_task_remote_net_sync_event_notify_add;
typedef void (*doca_rdma_task_remote_net_sync_event_get_completion_cb_t)(
    struct doca_rdma_task_remote_net_sync_event_get *task, union doca_data task_user_data,
    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t)(
    struct doca_rdma_task_remote_net_sync_event_notify_set *task, union doca_data task_user_data,
    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t)(
    struct doca_rdma_task_remote_net_sync_event_notify_add *task, union doca_data task_user_data,
    union doca_data ctx_user_data);
doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(
    struct doca_rdma *rdma,
    doca_rdma_task_remote_net_sync_event_get_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_remote_net_sync_event_get_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
    struct doca_rdma *rdma,
    doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t error_task_completion_cb,
    uint32_t num_tasks);
doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
    struct doca_rdma *rdma,
    doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t successful_task_completion_cb,
    doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t error_task_completion_cb,
    uint32_t num_tasks);
doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
    struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
    const struct doca_sync_event_remote_net *event, struct doca_buf *dst_buf, union doca_data user_data,
    struct doca_rdma_task_remote_net_sync_event_get **task);
struct doca_task *
doca_rdma_task_remote_net_sync_event_get_as_task(struct doca_rdma_task_remote_net_sync_event_get *task);
struct doca_buf *doca_rdma_task_remote_net_sync_event_get_get_dst_buf(
    const struct doca_rdma_task_remote_net_sync_event_get *task);
doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
    struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
    struct doca_sync_event_remote_net *event, const struct doca_buf *src_buf, union doca_data user_data,
    struct doca_rdma_task_remote_net_sync_event_notify_set **task);
struct doca_task *doca_rdma_task_remote_net_sync_event_notify_set_as_task(
    struct doca_rdma_task_remote_net_sync_event_notify_set *task);
doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
    struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
    struct doca_sync_event_remote_net *event, struct doca_buf *result_buf, uint64_t add_data,
    union doca_data user_data, struct doca_rdma_task_remote_net_sync_event_notify_add **task);
struct doca_task *doca_rdma_task_remote_net_sync_event_notify_add_as_task(
    struct doca_rdma_task_remote_net_sync_event_notify_add *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMA_H_ */
