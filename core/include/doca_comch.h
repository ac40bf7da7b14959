/*
 * DOCA Comch (communication channel), control path: a server on the DPU (a PF plus the
 * representor of the host function it serves) and clients on the host (that function) exchange
 * short messages. Both ends are doca_ctx's: tasks (send) complete and events (message received,
 * connection status changed) are delivered only inside doca_pe_progress().
 *
 * skiff emulates the PCIe channel with a local SOCK_SEQPACKET socket: the server listens on a
 * path derived from the representor's PCI address and the server name, the client connects to
 * the path derived from its own PCI address and the same name (so a host function meets the DPU
 * PF that manages its representor). The directory is SKIFF_COMCH_DIR (default /tmp/skiff-comch).
 *
 * Lifecycle:
 *  - server: create -> task_send_set_conf, event registrations, optional sizes -> connect to a
 *    PE -> doca_ctx_start (RUNNING at once) -> connection events as clients come and go.
 *  - client: the same, but doca_ctx_start returns DOCA_ERROR_IN_PROGRESS: the ctx stays STARTING
 *    (retrying while no server listens) and becomes RUNNING inside progress once the server
 *    accepted it. When the server goes away the client ctx stops by itself (in-flight sends fail,
 *    STOPPING then IDLE); start it again to reconnect.
 *  - A send task points at the caller's message: the buffer must stay unchanged until the task's
 *    callback ran (a full socket keeps the task queued inside the ctx).
 *  - A received message lives only for the duration of the receive callback.
 *
 * The data path (doca_comch_producer.h / doca_comch_consumer.h) runs on a connection of either
 * end; the consumer events below tell one end about the other end's consumers.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_ctx;
struct doca_task;

/** One point-to-point connection between a server and a client. */
struct doca_comch_connection;
/** The DPU-side end. */
struct doca_comch_server;
/** The host-side end. */
struct doca_comch_client;
/** A task that sends one message on a connection. */
struct doca_comch_task_send;
/** Event handles passed to the callbacks (opaque, never NULL). */
struct doca_comch_event_msg_recv;
struct doca_comch_event_connection_status_changed;
struct doca_comch_event_consumer;

/* ---- connections */

/** Attaches application data to a connection. DOCA_ERROR_INVALID_VALUE on NULL. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
                                                 union doca_data user_data);

/** The data attached with doca_comch_connection_set_user_data (zero if never set). */
DOCA_EXPERIMENTAL
union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

/** The server a connection belongs to; NULL for the connection of a client. */
DOCA_EXPERIMENTAL
struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection);

/** The client a connection belongs to; NULL for a connection of a server. */
DOCA_EXPERIMENTAL
struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection);

/** Statistics of a connection (doca_comch_connection_get_counter). */
enum doca_comch_counter {
    DOCA_COMCH_COUNTER_SENT_MESSAGES = 1, /**< messages sent from this side */
    DOCA_COMCH_COUNTER_SENT_BYTES = 2,    /**< bytes sent from this side */
    DOCA_COMCH_COUNTER_RECV_MESSAGES = 3, /**< messages received on this side */
    DOCA_COMCH_COUNTER_RECV_BYTES = 4,    /**< bytes received on this side */
};

/**
 * Takes a snapshot of the counters of a connection for doca_comch_connection_get_counter.
 * DOCA_ERROR_CONNECTION_ABORTED when the connection is gone.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_update_info(struct doca_comch_connection *connection);

/** A counter as of the last doca_comch_connection_update_info. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_connection_get_counter(const struct doca_comch_connection *connection,
                                               enum doca_comch_counter counter_type, uint64_t *counter_value);

/* ---- capabilities (any device that can run a server or a client) */

/** Longest server name, terminating NUL included. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len);

/** Largest message a connection carries. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);

/** Largest receive queue (messages buffered before the application progresses). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size);

/** Most clients connected to one server at a time. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients);

/** Most send tasks one ctx may configure. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks);

/** DOCA_SUCCESS for a DPU-side PF (it manages host representors), DOCA_ERROR_NOT_SUPPORTED otherwise. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);

/** DOCA_SUCCESS for a host-side function, DOCA_ERROR_NOT_SUPPORTED otherwise. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---- server */

/**
 * Creates a server named `name` on DPU PF `dev`, serving the host function behind representor
 * `repr` (listed through `dev`). DOCA_ERROR_INVALID_VALUE on NULL or a name that is empty or too
 * long, DOCA_ERROR_NOT_SUPPORTED when dev is not a DPU PF, DOCA_ERROR_NOT_PERMITTED when repr is
 * not a representor of dev.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
                                      struct doca_comch_server **comch_server);

/** DOCA_ERROR_IN_USE unless IDLE. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);

/** IDLE only (BAD_STATE); at most doca_comch_cap_get_max_msg_size (INVALID_VALUE). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size);

/** IDLE only (BAD_STATE); 1..doca_comch_cap_get_max_recv_queue_size (INVALID_VALUE). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
                                                   uint32_t *size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
                                          struct doca_dev **dev);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
                                               struct doca_dev_rep **repr);

DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);

/**
 * Closes one connection: the client sees the server go away. The disconnection event follows
 * inside progress. DOCA_ERROR_NOT_CONNECTED when the connection is not connected.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
                                          struct doca_comch_connection *connection);

/* ---- client */

/**
 * Creates a client of the server called `name`, on host function `dev`.
 * DOCA_ERROR_INVALID_VALUE on NULL or a bad name, DOCA_ERROR_NOT_SUPPORTED when dev is not a
 * host-side function.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
                                      struct doca_comch_client **comch_client);

/** DOCA_ERROR_IN_USE unless IDLE. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
                                                   uint32_t *size);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
                                          struct doca_dev **dev);

DOCA_EXPERIMENTAL
struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);

/** The client's one connection; RUNNING only (DOCA_ERROR_BAD_STATE otherwise). */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
                                              struct doca_comch_connection **connection);

/* ---- send task */

typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task,
                                                     union doca_data task_user_data,
                                                     union doca_data ctx_user_data);

/** Success and error callbacks and the number of send tasks; IDLE only. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
                                                  doca_comch_task_send_completion_cb_t task_completion_cb,
                                                  doca_comch_task_send_completion_cb_t task_error_cb,
                                                  uint32_t num_send_tasks);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
                                                  doca_comch_task_send_completion_cb_t task_completion_cb,
                                                  doca_comch_task_send_completion_cb_t task_error_cb,
                                                  uint32_t num_send_tasks);

/**
 * Takes a send task of `len` bytes at `msg` to `peer`. RUNNING only (BAD_STATE), NO_MEMORY when
 * every task is taken, INVALID_VALUE for NULLs, an empty message or one above the ctx's
 * max_msg_size. A task whose connection has gone completes with DOCA_ERROR_NOT_CONNECTED.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
                                                    struct doca_comch_connection *peer, const void *msg,
                                                    uint32_t len, struct doca_comch_task_send **task);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
                                                    struct doca_comch_connection *peer, const void *msg,
                                                    uint32_t len, struct doca_comch_task_send **task);

DOCA_EXPERIMENTAL
struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

/** The connection a send task goes to. */
DOCA_EXPERIMENTAL
struct doca_comch_connection *doca_comch_task_send_get_peer(const struct doca_comch_task_send *task);

/* ---- events */

typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer,
                                               uint32_t msg_len,
                                               struct doca_comch_connection *comch_connection);

/** The receive callback; IDLE only. Without it, received messages are dropped with a warning. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb);

DOCA_EXPERIMENTAL
doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
                                                       doca_comch_event_msg_recv_cb_t recv_event_cb);

/** change_successful is 1 for a completed connect or disconnect, 0 for a refused one. */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(
    struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *comch_connection,
    uint8_t change_successful);

/**
 * Server callbacks for a client that connected and one that disconnected (or died); IDLE only.
 * The connection stays valid until the disconnect callback returns.
 */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_connection_status_changed_register(
    struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/** The same registration under its DOCA 2.7 name. */
DOCA_EXPERIMENTAL
doca_error_t doca_comch_server_event_connection_register(
    struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
    doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
                                               struct doca_comch_connection *comch_connection, uint32_t id);

/**
 * Callbacks for the peer's consumers (doca_comch_consumer.h): a new one announced itself (its id
 * is what a producer on this end sends to) or one expired (stopped or destroyed); IDLE only.
 */
DOCA_EXPERIMENTAL
doca_error_t
doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb);

DOCA_EXPERIMENTAL
doca_error_t
doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
                                          doca_comch_event_consumer_cb_t new_consumer_event_cb,
                                          doca_comch_event_consumer_cb_t expired_consumer_event_cb);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
