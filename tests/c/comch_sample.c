/*
 * A DOCA Comch control-path program written the way DOCA applications are, against the public
 * headers only, in two processes: the parent is the DPU side (a server on PF 03:00.0 serving the
 * host function 0b:00.0 through its representor), the forked child is the host side (a client on
 * 0b:00.0). The client sends ROUNDS numbered requests; the server answers each one with the
 * number plus one; the client checks every answer, then stops its ctx, and the server must see
 * the disconnection. Exits non-zero on any failure (the child's status included).
 */
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

DOCA_LOG_REGISTER(COMCH_SAMPLE);

#define SERVER_NAME "skiff-comch-sample"
#define ROUNDS 100
#define NUM_TASKS 8

struct endpoint {
    struct doca_dev *dev;
    struct doca_dev_rep *rep; /* server only */
    struct doca_pe *pe;
    struct doca_comch_server *server;
    struct doca_comch_client *client;
    struct doca_ctx *ctx;
    struct doca_comch_connection *peer;
    uint32_t answers[NUM_TASKS]; /* message bodies stay put until their send completes */
    uint32_t next_slot;
    uint32_t received;
    uint32_t expected; /* client: the answer it waits for */
    int connected;
    int disconnected;
    int failed;
};

static struct endpoint ep;

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

static void send_done(struct doca_comch_task_send *task, union doca_data task_data,
                      union doca_data ctx_data) {
    (void)task_data;
    (void)ctx_data;
    if (doca_task_get_status(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS) {
        DOCA_LOG_ERR("send failed: %s",
                     doca_error_get_name(doca_task_get_status(doca_comch_task_send_as_task(task))));
        ep.failed = 1;
    }
    doca_task_free(doca_comch_task_send_as_task(task));
}

static doca_error_t send_number(uint32_t value) {
    struct doca_comch_task_send *task;
    uint32_t *body = &ep.answers[ep.next_slot++ % NUM_TASKS];

    *body = value;
    if (ep.server != NULL)
        CHECK(doca_comch_server_task_send_alloc_init(ep.server, ep.peer, body, sizeof(*body), &task));
    else
        CHECK(doca_comch_client_task_send_alloc_init(ep.client, ep.peer, body, sizeof(*body), &task));
    CHECK(doca_task_submit(doca_comch_task_send_as_task(task)));
    return DOCA_SUCCESS;
}

static void message_received(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
                             struct doca_comch_connection *connection) {
    uint32_t value;

    (void)event;
    if (len != sizeof(value)) {
        DOCA_LOG_ERR("message of %u bytes, expected %zu", len, sizeof(value));
        ep.failed = 1;
        return;
    }
    memcpy(&value, buf, sizeof(value));
    ep.received++;
    if (ep.server != NULL) { /* answer with the number plus one */
        ep.peer = connection;
        if (send_number(value + 1) != DOCA_SUCCESS) ep.failed = 1;
        return;
    }
    if (value != ep.expected) {
        DOCA_LOG_ERR("answer %u, expected %u", value, ep.expected);
        ep.failed = 1;
    }
    ep.expected = 0;
}

static void client_connected(struct doca_comch_event_connection_status_changed *event,
                             struct doca_comch_connection *connection, uint8_t ok) {
    (void)event;
    ep.connected += ok;
    ep.peer = connection;
}

static void client_disconnected(struct doca_comch_event_connection_status_changed *event,
                                struct doca_comch_connection *connection, uint8_t ok) {
    (void)event;
    (void)connection;
    ep.disconnected += ok;
}

static void progress_until(int *flag, int value) {
    while (*flag < value && !ep.failed) {
        if (doca_pe_progress(ep.pe) == 0) usleep(50);
    }
}

static doca_error_t wait_idle(void) {
    enum doca_ctx_states state;

    do {
        doca_pe_progress(ep.pe);
        CHECK(doca_ctx_get_state(ep.ctx, &state));
    } while (state != DOCA_CTX_STATE_IDLE);
    return DOCA_SUCCESS;
}

static doca_error_t run_client(void) {
    enum doca_ctx_states state;
    uint32_t max_msg, i;
    doca_error_t r;

    CHECK(open_device("host", "0b:00.0", &ep.dev));
    CHECK(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(ep.dev)));
    CHECK(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(ep.dev), &max_msg));
    CHECK(doca_pe_create(&ep.pe));
    CHECK(doca_comch_client_create(ep.dev, SERVER_NAME, &ep.client));
    ep.ctx = doca_comch_client_as_ctx(ep.client);
    CHECK(doca_pe_connect_ctx(ep.pe, ep.ctx));
    CHECK(doca_comch_client_task_send_set_conf(ep.client, send_done, send_done, NUM_TASKS));
    CHECK(doca_comch_client_event_msg_recv_register(ep.client, message_received));
    CHECK(doca_comch_client_set_max_msg_size(ep.client, max_msg));
    r = doca_ctx_start(ep.ctx);
    if (r != DOCA_ERROR_IN_PROGRESS) {
        DOCA_LOG_ERR("client start: %s, expected DOCA_ERROR_IN_PROGRESS", doca_error_get_name(r));
        return DOCA_ERROR_UNEXPECTED;
    }
    do { /* the server may not be up yet: the client waits in STARTING */
        if (doca_pe_progress(ep.pe) == 0) usleep(50);
        CHECK(doca_ctx_get_state(ep.ctx, &state));
    } while (state != DOCA_CTX_STATE_RUNNING);
    CHECK(doca_comch_client_get_connection(ep.client, &ep.peer));

    for (i = 1; i <= ROUNDS && !ep.failed; i++) {
        ep.expected = i * 10 + 1;
        CHECK(send_number(i * 10));
        while (ep.expected != 0 && !ep.failed) doca_pe_progress(ep.pe);
    }
    r = doca_ctx_stop(ep.ctx);
    if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS) return r;
    CHECK(wait_idle());
    CHECK(doca_comch_client_destroy(ep.client));
    CHECK(doca_pe_destroy(ep.pe));
    CHECK(doca_dev_close(ep.dev));
    if (ep.failed || ep.received != ROUNDS) return DOCA_ERROR_UNEXPECTED;
    return DOCA_SUCCESS;
}

static doca_error_t run_server(pid_t client) {
    uint32_t max_clients;
    int status = 0;
    doca_error_t r;

    CHECK(open_device("dpu", "03:00.0", &ep.dev));
    CHECK(open_representor(ep.dev, "0b:00.0", &ep.rep));
    CHECK(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(ep.dev)));
    CHECK(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(ep.dev), &max_clients));
    CHECK(doca_pe_create(&ep.pe));
    CHECK(doca_comch_server_create(ep.dev, ep.rep, SERVER_NAME, &ep.server));
    ep.ctx = doca_comch_server_as_ctx(ep.server);
    CHECK(doca_pe_connect_ctx(ep.pe, ep.ctx));
    CHECK(doca_comch_server_task_send_set_conf(ep.server, send_done, send_done, NUM_TASKS));
    CHECK(doca_comch_server_event_msg_recv_register(ep.server, message_received));
    CHECK(doca_comch_server_event_connection_status_changed_register(ep.server, client_connected,
                                                                     client_disconnected));
    CHECK(doca_ctx_start(ep.ctx));

    progress_until(&ep.connected, 1);
    progress_until(&ep.disconnected, 1); /* the client stops after its last answer */
    waitpid(client, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        DOCA_LOG_ERR("the client process failed (status %d)", status);
        ep.failed = 1;
    }
    r = doca_ctx_stop(ep.ctx);
    if (r != DOCA_SUCCESS && r != DOCA_ERROR_IN_PROGRESS) return r;
    CHECK(wait_idle());
    CHECK(doca_comch_server_destroy(ep.server));
    CHECK(doca_pe_destroy(ep.pe));
    CHECK(doca_dev_rep_close(ep.rep));
    CHECK(doca_dev_close(ep.dev));
    if (ep.failed || ep.received != ROUNDS) {
        DOCA_LOG_ERR("server received %u requests, expected %d", ep.received, ROUNDS);
        return DOCA_ERROR_UNEXPECTED;
    }
    printf("comch sample: %d request/answer rounds between two processes, disconnect seen\n", ROUNDS);
    return DOCA_SUCCESS;
}

int main(void) {
    char dir[] = "/tmp/skiff-comch-sample-XXXXXX";
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
