/*
 * DOCA Comch data path, receiving side: a consumer is created on an established comch connection
 * with an mmap of the memory it lets producers write into, and posts receive tasks, each with a
 * doca_buf in that mmap. A post-receive task completes when a producer on the other end of the
 * connection has filled its buffer: the bytes are appended to the buf's data, and the task tells
 * the immediate data and the producer's id.
 *
 * Lifecycle: create -> doca_comch_consumer_task_post_recv_set_conf -> doca_pe_connect_ctx (any
 * PE) -> doca_ctx_start returns DOCA_ERROR_IN_PROGRESS: the ctx is STARTING until the consumer has
 * announced itself on the connection (inside progress of its own PE); it is then RUNNING and the
 * peer's comch server/client raises its new-consumer event with the consumer's id. A stop (or
 * destroy) announces the consumer's expiry (the peer's expired-consumer event) and flushes posted
 * tasks with DOCA_ERROR_SHUTDOWN.
 *
 * skiff's emulation: the consumer's datagram socket in SKIFF_COMCH_DIR receives the producers'
 * sends; progress copies the oldest waiting one into the oldest posted buffer (FIFO both ways).
 * A message longer than the posted buffer's free space, or with more immediate data than the
 * consumer's imm_data_len, fails that task with DOCA_ERROR_INVALID_VALUE (the message is dropped).
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

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
struct doca_mmap;
struct doca_task;
struct doca_comch_connection;

/** The receiving end of the data path on one comch connection. */
struct doca_comch_consumer;
/** A task that offers one buffer for a producer to fill. */
struct doca_comch_consumer_task_post_recv;

/**
 * Creates a consumer on `comch_connection` receiving into `buf_mmap` (started). DOCA_ERROR_INVALID_VALUE
 * on NULL or an mmap that is not started, DOCA_ERROR_BAD_STATE when the connection is not connected.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
                                        struct doca_mmap *buf_mmap, struct doca_comch_consumer **consumer);

/** DOCA_ERROR_IN_USE unless IDLE. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

/** DOCA_SUCCESS for any device that can run a comch server or client. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/** The consumer's id (what producers address), unique per connection. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_num_tasks);

/** The largest buffer one receive takes. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
                                                      uint32_t *max_buf_size);

/** 1: buffer lists are not supported. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_buf_list_len);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
                                                       uint32_t *max_consumers);

/** The most immediate data one send carries (32 bytes). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
                                                          uint32_t *max_imm_data_len);

/** The immediate data this consumer accepts (default: the maximum). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
                                                  uint32_t *imm_data_len);

/** IDLE only (BAD_STATE); at most the maximum (INVALID_VALUE). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
                                                  uint32_t imm_data_len);

DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(
    struct doca_comch_consumer_task_post_recv *task, union doca_data task_user_data,
    union doca_data ctx_user_data);

/** Success and error callbacks and the number of post-receive tasks; IDLE only (BAD_STATE). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_set_conf(
    struct doca_comch_consumer *consumer,
    doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
    doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);

/**
 * Takes a post-receive task for `buf`, which must lie in the consumer's mmap (INVALID_VALUE
 * otherwise). RUNNING only (BAD_STATE), NO_MEMORY when every task is taken.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer,
                                                           struct doca_buf *buf,
                                                           struct doca_comch_consumer_task_post_recv **task);

DOCA_EXPERIMENTAL
struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
                                                struct doca_buf *buf);

/** The producer that filled the buffer; 0 before completion. */
DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task);

/** The immediate data received with the buffer; NULL when none (valid until the task is reused). */
DOCA_EXPERIMENTAL
uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task);

DOCA_EXPERIMENTAL
struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
