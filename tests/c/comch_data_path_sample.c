/*
 * The DOCA Comch data path, written the way DOCA applications use it, against the public headers
 * only, in two processes. The parent is the DPU side: a comch server on PF 03:00.0 for host
 * function 0b:00.0. The forked child is the host side: a comch client on 0b:00.0 that, once
 * connected, creates a consumer (on a PE of its own) and posts a few receive buffers. The server
 * learns the consumer's id from its new-consumer event, creates a producer (also on its own PE)
 * and sends ROUNDS blocks to it, each with 8 bytes of immediate data: the round number and the
 * producer's id. The client checks every block's bytes, its immediate data and the producer id
 * the task reports, reposts the buffer, and stops its consumer after the last one: the server
 * must see the consumer expire, then the client disconnect. Exits non-zero on any failure.
 */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

DOCA_LOG_REGISTER(COMCH_DATA_PATH_SAMPLE);

#define SERVER_NAME "skiff-comch-dp-sample"
#define ROUNDS 200
#define NUM_BUFS 4
#define BLOCK 512

struct side {
    struct doca_dev *dev;
    struct doca_dev_rep *rep; /* server only */
    struct doca_pe *pe;       /* the comch server's or client's */
    struct doca_comch_server *server;
    struct doca_comch_client *client;
    struct doca_ctx *ctx;
    struct doca_comch_connection *conn;
    struct doca_pe *dp_pe; /* the consumer's or producer's */
    struct doca_comch_consumer *consumer;
    struct doca_comch_producer *producer;
    struct doca_mmap *mmap;
    struct doca_buf_inventory *inv;
    uint8_t mem[NUM_BUFS * BLOCK];
    uint32_t consumer_id; /* server: the client's consumer */
    uint32_t producer_id;
    int connected, disconnected, consumers_new, consumers_expired;
    uint32_t received, sent, in_flight;
    int failed;
};

static struct side sd;

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        doca_error_t r_ = (call);                                                                            \
        if (r_ != DOCA_SUCCESS) {                                                                            \
            DOCA_LOG_ERR("%s failed: %s", #call, doca_error_get_name(r_));                                   \
            return r_;                                                                                       \
        }                                                                                                    \
    } while (0)

static doca_error_t open_device(const char *side, const char *pci, struct doca_dev **dev) {
    struct doca_devinfo **list;
    uint32_t n, i;
    uint8_t eq;

    setenv("SKIFF_SIDE", side, 1);
    CHECK(doca_devinfo_create_list(&list, &n));
    *dev = NULL;
    for (i = 0; i < n && *dev == NULL; i++) {
        if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            CHECK(doca_dev_open(list[i], dev));
    }
    doca_devinfo_destroy_list(list);
    return *dev != NULL ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

static doca_error_t open_representor(struct doca_dev *dev, const char *pci, struct doca_dev_rep **rep) {
    struct doca_devinfo_rep **list;
    uint32_t n, i;
    uint8_t eq;

    CHECK(doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n));
    *rep = NULL;
    for (i = 0; i < n && *rep == NULL; i++) {
        if (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
            CHECK(doca_dev_rep_open(list[i], rep));
    }
    doca_devinfo_rep_destroy_list(list);
    return *rep != NULL ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

static void fill_block(uint8_t *p, uint32_t round) {
    uint32_t i;

    for (i = 0; i < BLOCK; i++) p[i] = (uint8_t)(round * 7 + i);
}

static doca_error_t make_memory(void) {
    CHECK(doca_mmap_create(&sd.mmap));
    CHECK(doca_mmap_add_dev(sd.mmap, sd.dev));
    CHECK(doca_mmap_set_memrange(sd.mmap, sd.mem, sizeof(sd.mem)));
    CHECK(doca_mmap_start(sd.mmap));
    CHECK(doca_buf_inventory_create(NUM_BUFS, &sd.inv));
    CHECK(doca_buf_inventory_start(sd.inv));
    return DOCA_SUCCESS;
}

static doca_error_t free_memory(void) {
    CHECK(doca_buf_inventory_destroy(sd.inv));
    CHECK(doca_mmap_destroy(sd.mmap));
    return DOCA_SUCCESS;
}

static doca_error_t stop_to_idle(struct doca_ctx *ctx, struct doca_pe *pe) {
    enum doca_ctx_states state;
    doca_error_t r = doca_ctx_stop(ctx);

    if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS) return r;
    do {
        doca_pe_progress(pe);
        CHECK(doca_ctx_get_state(ctx, &state));
    } while (state != DOCA_CTX_STATE_IDLE);
    return DOCA_SUCCESS;
}

/* ---- host side: the consumer */

static doca_error_t post(struct doca_buf *buf) {
    struct doca_comch_consumer_task_post_recv *task;

    CHECK(doca_buf_reset_data_len(buf));
    CHECK(doca_comch_consumer_task_post_recv_alloc_init(sd.consumer, buf, &task));
    CHECK(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)));
    return DOCA_SUCCESS;
}

static void block_received(struct doca_comch_consumer_task_post_recv *task, union doca_data task_data,
                           union doca_data ctx_data) {
    struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
    uint8_t expected[BLOCK];
    uint32_t imm[2];
    void *data;
    size_t len;

    (void)task_data;
    (void)ctx_data;
    doca_buf_get_data(buf, &data);
    doca_buf_get_data_len(buf, &len);
    if (doca_comch_consumer_task_post_recv_get_imm_data_len(task) != sizeof(imm)) {
        DOCA_LOG_ERR("block %u: %u bytes of immediate data, expected %zu", sd.received,
                     doca_comch_consumer_task_post_recv_get_imm_data_len(task), sizeof(imm));
        sd.failed = 1;
    } else {
        memcpy(imm, doca_comch_consumer_task_post_recv_get_imm_data(task), sizeof(imm));
        fill_block(expected, imm[0]);
        if (imm[0] != sd.received || imm[1] != doca_comch_consumer_task_post_recv_get_producer_id(task) ||
            len != BLOCK || memcmp(data, expected, BLOCK) != 0) {
            DOCA_LOG_ERR("block %u: round %u, producer %u/%u, %zu bytes: not what was sent", sd.received,
                         imm[0], imm[1], doca_comch_consumer_task_post_recv_get_producer_id(task), len);
            sd.failed = 1;
        }
    }
    sd.received++;
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    if (sd.received + NUM_BUFS <= ROUNDS) {
        if (post(buf) != DOCA_SUCCESS) sd.failed = 1;
    } else {
        doca_buf_dec_refcount(buf, NULL);
    }
}

static void receive_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data task_data,
                           union doca_data ctx_data) {
    (void)task_data;
    (void)ctx_data;
    DOCA_LOG_ERR("post receive failed: %s",
                 doca_error_get_name(doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task))));
    doca_buf_dec_refcount(doca_comch_consumer_task_post_recv_get_buf(task), NULL);
    doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
    sd.failed = 1;
}

static doca_error_t run_client(void) {
    enum doca_ctx_states state;
    struct doca_buf *buf;
    doca_error_t r;
    uint32_t i;

    CHECK(open_device("host", "0b:00.0", &sd.dev));
    CHECK(doca_comch_consumer_cap_is_supported(doca_dev_as_devinfo(sd.dev)));
    CHECK(doca_pe_create(&sd.pe));
    CHECK(doca_comch_client_create(sd.dev, SERVER_NAME, &sd.client));
    sd.ctx = doca_comch_client_as_ctx(sd.client);
    CHECK(doca_pe_connect_ctx(sd.pe, sd.ctx));
    r = doca_ctx_start(sd.ctx);
    if (r != DOCA_ERROR_IN_PROGRESS) return DOCA_ERROR_UNEXPECTED;
    do {
        if (doca_pe_progress(sd.pe) == 0) usleep(50);
        CHECK(doca_ctx_get_state(sd.ctx, &state));
    } while (state != DOCA_CTX_STATE_RUNNING);
    CHECK(doca_comch_client_get_connection(sd.client, &sd.conn));

    /* The consumer, on its own PE: STARTING until it has announced itself to the server. */
    CHECK(make_memory());
    CHECK(doca_pe_create(&sd.dp_pe));
    CHECK(doca_comch_consumer_create(sd.conn, sd.mmap, &sd.consumer));
    CHECK(doca_pe_connect_ctx(sd.dp_pe, doca_comch_consumer_as_ctx(sd.consumer)));
    CHECK(doca_comch_consumer_task_post_recv_set_conf(sd.consumer, block_received, receive_failed, NUM_BUFS));
    CHECK(doca_comch_consumer_set_imm_data_len(sd.consumer, 8));
    r = doca_ctx_start(doca_comch_consumer_as_ctx(sd.consumer));
    if (r != DOCA_ERROR_IN_PROGRESS) {
        DOCA_LOG_ERR("consumer start: %s, expected DOCA_ERROR_IN_PROGRESS", doca_error_get_name(r));
        return DOCA_ERROR_UNEXPECTED;
    }
    do {
        doca_pe_progress(sd.dp_pe);
        CHECK(doca_ctx_get_state(doca_comch_consumer_as_ctx(sd.consumer), &state));
    } while (state != DOCA_CTX_STATE_RUNNING);
    for (i = 0; i < NUM_BUFS; i++) {
        CHECK(doca_buf_inventory_buf_get_by_addr(sd.inv, sd.mmap, sd.mem + i * BLOCK, BLOCK, &buf));
        CHECK(post(buf));
    }
    while (sd.received < ROUNDS && !sd.failed) {
        int busy = doca_pe_progress(sd.dp_pe) + doca_pe_progress(sd.pe);
        if (!busy) usleep(20);
    }
    CHECK(stop_to_idle(doca_comch_consumer_as_ctx(sd.consumer), sd.dp_pe));
    CHECK(doca_comch_consumer_destroy(sd.consumer));
    CHECK(doca_pe_destroy(sd.dp_pe));
    CHECK(free_memory());
    /* Let the server see the expiry before the connection goes. */
    for (i = 0; i < 200; i++) {
        doca_pe_progress(sd.pe);
        usleep(500);
    }
    CHECK(stop_to_idle(sd.ctx, sd.pe));
    CHECK(doca_comch_client_destroy(sd.client));
    CHECK(doca_pe_destroy(sd.pe));
    CHECK(doca_dev_close(sd.dev));
    return sd.failed || sd.received != ROUNDS ? DOCA_ERROR_UNEXPECTED : DOCA_SUCCESS;
}

/* ---- DPU side: the producer */

static void block_sent(struct doca_comch_producer_task_send *task, union doca_data task_data,
                       union doca_data ctx_data) {
    doca_error_t status = doca_task_get_status(doca_comch_producer_task_send_as_task(task));

    (void)task_data;
    (void)ctx_data;
    if (status != DOCA_SUCCESS) {
        DOCA_LOG_ERR("send failed: %s", doca_error_get_name(status));
        sd.failed = 1;
    }
    doca_buf_dec_refcount((struct doca_buf *)doca_comch_producer_task_send_get_buf(task), NULL);
    doca_task_free(doca_comch_producer_task_send_as_task(task));
    sd.in_flight--;
}

static doca_error_t send_block(uint32_t round) {
    struct doca_comch_producer_task_send *task;
    uint8_t *slot = sd.mem + (round % NUM_BUFS) * BLOCK;
    struct doca_buf *buf;
    uint32_t imm[2] = {round, sd.producer_id};
    doca_error_t r;

    fill_block(slot, round);
    CHECK(doca_buf_inventory_buf_get_by_data(sd.inv, sd.mmap, slot, BLOCK, &buf));
    CHECK(doca_comch_producer_task_send_alloc_init(sd.producer, buf, (uint8_t *)imm, sizeof(imm),
                                                   sd.consumer_id, &task));
    /* AGAIN: the consumer has no room for now; the task is still ours, try again. */
    while ((r = doca_task_submit(doca_comch_producer_task_send_as_task(task))) == DOCA_ERROR_AGAIN) {
        doca_pe_progress(sd.dp_pe);
        usleep(20);
    }
    CHECK(r);
    sd.in_flight++;
    return DOCA_SUCCESS;
}

static void consumer_new(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn,
                         uint32_t id) {
    (void)event;
    sd.conn = conn;
    sd.consumer_id = id;
    sd.consumers_new++;
}

static void consumer_expired(struct doca_comch_event_consumer *event, struct doca_comch_connection *conn,
                             uint32_t id) {
    (void)event;
    (void)conn;
    if (id != sd.consumer_id) {
        DOCA_LOG_ERR("consumer %u expired, expected %u", id, sd.consumer_id);
        sd.failed = 1;
    }
    sd.consumers_expired++;
}

static void client_connected(struct doca_comch_event_connection_status_changed *event,
                             struct doca_comch_connection *conn, uint8_t ok) {
    (void)event;
    (void)conn;
    sd.connected += ok;
}

static void client_disconnected(struct doca_comch_event_connection_status_changed *event,
                                struct doca_comch_connection *conn, uint8_t ok) {
    (void)event;
    (void)conn;
    sd.disconnected += ok;
}

static void progress_until(int *flag) {
    while (*flag == 0 && !sd.failed) {
        if (doca_pe_progress(sd.pe) == 0) usleep(50);
    }
}

static doca_error_t run_server(pid_t client) {
    int status = 0;
    uint32_t i;

    CHECK(open_device("dpu", "03:00.0", &sd.dev));
    CHECK(open_representor(sd.dev, "0b:00.0", &sd.rep));
    CHECK(doca_comch_producer_cap_is_supported(doca_dev_as_devinfo(sd.dev)));
    CHECK(doca_pe_create(&sd.pe));
    CHECK(doca_comch_server_create(sd.dev, sd.rep, SERVER_NAME, &sd.server));
    sd.ctx = doca_comch_server_as_ctx(sd.server);
    CHECK(doca_pe_connect_ctx(sd.pe, sd.ctx));
    CHECK(doca_comch_server_event_connection_status_changed_register(sd.server, client_connected,
                                                                     client_disconnected));
    CHECK(doca_comch_server_event_consumer_register(sd.server, consumer_new, consumer_expired));
    CHECK(doca_ctx_start(sd.ctx));

    progress_until(&sd.consumers_new);
    CHECK(make_memory());
    CHECK(doca_pe_create(&sd.dp_pe));
    CHECK(doca_comch_producer_create(sd.conn, &sd.producer));
    CHECK(doca_pe_connect_ctx(sd.dp_pe, doca_comch_producer_as_ctx(sd.producer)));
    CHECK(doca_comch_producer_task_send_set_conf(sd.producer, block_sent, block_sent, NUM_BUFS));
    CHECK(doca_ctx_start(doca_comch_producer_as_ctx(sd.producer)));
    CHECK(doca_comch_producer_get_id(sd.producer, &sd.producer_id));
    for (i = 0; i < ROUNDS && !sd.failed; i++) {
        while (sd.in_flight == NUM_BUFS) doca_pe_progress(sd.dp_pe); /* a slot of sd.mem frees up */
        CHECK(send_block(i));
    }
    while (sd.in_flight != 0) doca_pe_progress(sd.dp_pe);
    CHECK(stop_to_idle(doca_comch_producer_as_ctx(sd.producer), sd.dp_pe));
    CHECK(doca_comch_producer_destroy(sd.producer));
    CHECK(doca_pe_destroy(sd.dp_pe));
    CHECK(free_memory());

    progress_until(&sd.consumers_expired);
    progress_until(&sd.disconnected);
    waitpid(client, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        DOCA_LOG_ERR("the client process failed (status %d)", status);
        sd.failed = 1;
    }
    CHECK(stop_to_idle(sd.ctx, sd.pe));
    CHECK(doca_comch_server_destroy(sd.server));
    CHECK(doca_pe_destroy(sd.pe));
    CHECK(doca_dev_rep_close(sd.rep));
    CHECK(doca_dev_close(sd.dev));
    if (sd.failed || sd.consumers_new != 1 || sd.consumers_expired != 1) return DOCA_ERROR_UNEXPECTED;
    printf("comch data path sample: %d blocks of %d bytes producer -> consumer, consumer expiry seen\n",
           ROUNDS, BLOCK);
    return DOCA_SUCCESS;
}

int main(void) {
    char dir[] = "/tmp/skiff-comch-dp-sample-XXXXXX";
    struct doca_log_backend *backend;
    doca_error_t r;
    pid_t child;
    char cmd[64];

    if (mkdtemp(dir) == NULL) return 1;
    setenv("SKIFF_COMCH_DIR", dir, 1);
    doca_log_backend_create_with_file_sdk(stderr, &backend);

    child = fork();
    if (child < 0) return 1;
    if (child == 0) _exit(run_client() == DOCA_SUCCESS ? 0 : 1);
    r = run_server(child);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return r == DOCA_SUCCESS ? 0 : 1;
}
