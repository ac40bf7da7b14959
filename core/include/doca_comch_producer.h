/*
 * DOCA Comch data path, sending side: a producer is created on an established comch connection
 * and fills buffers that consumers on the other end of that connection have posted. Each send
 * carries one doca_buf (its data region) and up to 32 bytes of immediate data to one
 * consumer, named by the id the peer's new-consumer event announced.
 *
 * skiff's emulation: every consumer owns a datagram socket in SKIFF_COMCH_DIR; a send is one
 * datagram (immediate data, producer id, then the buffer's bytes) written at submit. The task
 * completes with success once the bytes are queued for the consumer, which receives them into its
 * next posted buffer. While the consumer's queue is full the task waits inside the producer (in
 * submission order) and progress retries it, so doca_task_submit does not return
 * DOCA_ERROR_AGAIN; the buffer must stay unchanged until the task's callback. A consumer that does
 * not exist (never announced, or expired) fails the task with DOCA_ERROR_NOT_FOUND; a stop fails
 * waiting tasks with DOCA_ERROR_SHUTDOWN.
 *
 * Lifecycle: create on a connected connection -> doca_comch_producer_task_send_set_conf ->
 * doca_pe_connect_ctx (any PE, not necessarily the connection's) -> doca_ctx_start (RUNNING at
 * once) -> sends -> doca_ctx_stop -> destroy.
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

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
struct doca_devinfo;
struct doca_task;
struct doca_comch_connection;

/** The sending end of the data path on one comch connection. */
struct doca_comch_producer;
/** A task that sends one buffer (plus immediate data) to one consumer. */
struct doca_comch_producer_task_send;

/**
 * Creates a producer on `comch_connection`. DOCA_ERROR_INVALID_VALUE on NULL,
 * DOCA_ERROR_BAD_STATE when the connection is not connected.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_comch_producer **producer);

/** DOCA_ERROR_IN_USE unless IDLE. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

/** DOCA_SUCCESS for any device that can run a comch server or client. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/** The producer's id, unique per connection (consumers see it as the sender of what they receive). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

/** Most send tasks one producer may configure. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks);

/** The largest buffer one send carries. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size);

/** The longest buffer list one send carries (1: lists are not supported). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len);

/** Most producers on one connection. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_producers);

DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
                                                              union doca_data task_user_data,
                                                              union doca_data ctx_user_data);

/** Success and error callbacks and the number of send tasks; IDLE only (BAD_STATE). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_task_send_set_conf(
    struct doca_comch_producer *producer, doca_comch_producer_task_send_completion_cb_t task_completion_cb,
    doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);

/**
 * Takes a send task: the data region of `buf` (local memory, at most
 * doca_comch_producer_cap_get_max_buf_size bytes) and `imm_data_len` bytes of immediate data
 * (copied into the task; at most doca_comch_consumer_cap_get_max_imm_data_len) to consumer
 * `consumer_id`. RUNNING only (BAD_STATE), NO_MEMORY when every task is taken, INVALID_VALUE for
 * bad arguments.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
                                                      const struct doca_buf *buf, uint8_t *imm_data,
                                                      uint32_t imm_data_len, uint32_t consumer_id,
                                                      struct doca_comch_producer_task_send **task);

DOCA_EXPERIMENTAL
const struct doca_buf *doca_comch_producer_task_send_get_buf(struct doca_comch_producer_task_send *task);

DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
                                           const struct doca_buf *buf);

DOCA_EXPERIMENTAL
uint32_t doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task);

DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
                                                   const uint32_t consumer_id);

/** The task's copy of the immediate data; NULL when it has none. */
DOCA_EXPERIMENTAL
uint8_t *doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task);

DOCA_EXPERIMENTAL
uint32_t doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task);

/** Copies new immediate data into the task (a length above the maximum is clamped, with an error log). */
DOCA_EXPERIMENTAL
void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
                                                uint32_t imm_data_len);

DOCA_EXPERIMENTAL
struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
