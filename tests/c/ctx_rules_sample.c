/*
 * The context rules DOCA programs rely on, against the public headers only, as DOCA's samples
 * exercise them: cleanup that stops an IDLE context and closes a NULL device succeeds; the
 * notification handle may be cleared with 0; every task in flight at a stop fails with
 * DOCA_ERROR_SHUTDOWN; a program that restarts a context as soon as it sees IDLE never gets the
 * -> IDLE callback while RUNNING; a stop made inside one of the ctx's own callbacks returns
 * DOCA_ERROR_IN_PROGRESS and its state callbacks come from later progress calls, never nested in
 * the callback that stopped (DOCA's RDMA samples check for IN_PROGRESS there). Also the sync event calls of
 * DOCA 2.7+: wait_eq (blocking and as a task) and the remote-PCI export imported by a second process that
 * updates the counter. Exits non-zero on any failure.
 */
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

DOCA_LOG_REGISTER(CTX_RULES::MAIN);

static int failures;

#define CHECK(cond, what)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, what);                                   \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

struct record {
    int ok, shutdown, other_error;
    int idle_callbacks, idle_callbacks_while_running;
    enum doca_ctx_states last;
};

static void state_cb(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
                     enum doca_ctx_states next) {
    struct record *r = user_data.ptr;
    enum doca_ctx_states now;
    (void)prev;
    doca_ctx_get_state(ctx, &now);
    if (next == DOCA_CTX_STATE_IDLE) {
        r->idle_callbacks++;
        if (now == DOCA_CTX_STATE_RUNNING) r->idle_callbacks_while_running++;
    }
    r->last = next;
}

static void wait_done(struct doca_sync_event_task_wait_eq *task, union doca_data task_ud,
                      union doca_data ctx_ud) {
    struct record *r = ctx_ud.ptr;
    struct doca_task *t = doca_sync_event_task_wait_eq_as_doca_task(task);
    doca_error_t status = doca_task_get_status(t);
    (void)task_ud;
    if (status == DOCA_SUCCESS)
        r->ok++;
    else if (status == DOCA_ERROR_SHUTDOWN)
        r->shutdown++;
    else
        r->other_error++;
    doca_task_free(t);
}

static struct doca_task *submit_wait_eq(struct doca_sync_event *se, uint64_t value) {
    struct doca_sync_event_task_wait_eq *task = NULL;
    union doca_data ud = {.u64 = value};
    CHECK(doca_sync_event_task_wait_eq_alloc_init(se, value, UINT64_MAX, ud, &task) == DOCA_SUCCESS,
          "wait_eq alloc_init");
    if (!task) return NULL;
    struct doca_task *t = doca_sync_event_task_wait_eq_as_doca_task(task);
    CHECK(doca_task_submit(t) == DOCA_SUCCESS, "wait_eq submit");
    return t;
}

static void progress_until_idle(struct doca_pe *pe, struct doca_ctx *ctx) {
    enum doca_ctx_states s = DOCA_CTX_STATE_RUNNING;
    for (long i = 0; i < 10000000 && s != DOCA_CTX_STATE_IDLE; i++) {
        doca_pe_progress(pe);
        doca_ctx_get_state(ctx, &s);
    }
    CHECK(s == DOCA_CTX_STATE_IDLE, "the ctx reaches IDLE");
}

static void ctx_rules(void) {
    struct record rec = {0};
    struct doca_pe *pe = NULL;
    struct doca_sync_event *se = NULL;
    union doca_data ud = {.ptr = &rec};
    doca_notification_handle_t handle;
    int epfd;
    struct epoll_event event = {.events = EPOLLIN};

    CHECK(doca_dev_close(NULL) == DOCA_SUCCESS, "doca_dev_close(NULL) is nothing to do");
    CHECK(doca_pe_create(&pe) == DOCA_SUCCESS, "pe_create");
    CHECK(doca_sync_event_create(&se) == DOCA_SUCCESS, "sync_event_create");
    struct doca_ctx *ctx = doca_sync_event_as_ctx(se);
    CHECK(doca_ctx_stop(ctx) == DOCA_SUCCESS, "stop of a never-started ctx");
    doca_ctx_set_user_data(ctx, ud);
    doca_ctx_set_state_changed_cb(ctx, state_cb);
    CHECK(doca_sync_event_task_wait_eq_set_conf(se, wait_done, wait_done, 8) == DOCA_SUCCESS,
          "wait_eq set_conf");
    CHECK(doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS, "connect");
    CHECK(doca_ctx_start(ctx) == DOCA_SUCCESS, "start");
    while (doca_pe_progress(pe))
        ;

    /* Notification with handle 0, as DOCA's samples clear it. */
    CHECK(doca_pe_get_notification_handle(pe, &handle) == DOCA_SUCCESS, "notification handle");
    epfd = epoll_create1(0);
    epoll_ctl(epfd, EPOLL_CTL_ADD, handle, &event);
    CHECK(doca_pe_request_notification(pe) == DOCA_SUCCESS, "request notification");
    submit_wait_eq(se, 0); /* the counter is 0: ready at once */
    CHECK(epoll_wait(epfd, &event, 1, 10000) == 1, "woken for the ready task");
    CHECK(doca_pe_clear_notification(pe, 0) == DOCA_SUCCESS, "clear_notification(pe, 0)");
    CHECK(epoll_wait(epfd, &event, 1, 0) == 0, "the handle is cleared");
    while (doca_pe_progress(pe))
        ;
    CHECK(rec.ok == 1, "wait_eq 0 completed");
    close(epfd);

    /* wait_eq waits for equality, not for "greater". */
    submit_wait_eq(se, 5);
    CHECK(doca_sync_event_update_set(se, 7) == DOCA_SUCCESS, "set 7");
    for (int i = 0; i < 1000; i++) doca_pe_progress(pe);
    CHECK(rec.ok == 1, "wait_eq 5 does not complete at 7");
    CHECK(doca_sync_event_update_set(se, 5) == DOCA_SUCCESS, "set 5");
    for (long i = 0; i < 10000000 && rec.ok < 2; i++) doca_pe_progress(pe);
    CHECK(rec.ok == 2, "wait_eq 5 completes at 5");

    /* Tasks in flight at a stop fail, also those whose condition already holds. */
    submit_wait_eq(se, 5);
    submit_wait_eq(se, 100);
    CHECK(doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS, "stop with tasks in flight");
    progress_until_idle(pe, ctx);
    CHECK(rec.shutdown == 2 && rec.ok == 2 && rec.other_error == 0,
          "both in-flight tasks flushed with SHUTDOWN");

    /* Restart as soon as IDLE is seen: no -> IDLE callback may arrive while RUNNING. */
    for (int round = 0; round < 3; round++) {
        CHECK(doca_ctx_start(ctx) == DOCA_SUCCESS, "restart");
        submit_wait_eq(se, 1000);
        CHECK(doca_ctx_stop(ctx) == DOCA_ERROR_IN_PROGRESS, "stop");
        enum doca_ctx_states s = DOCA_CTX_STATE_STOPPING;
        for (long i = 0; i < 10000000 && s != DOCA_CTX_STATE_IDLE; i++) {
            doca_pe_progress(pe);
            doca_ctx_get_state(ctx, &s);
        }
        CHECK(doca_ctx_start(ctx) == DOCA_SUCCESS, "start at once on IDLE");
        for (int i = 0; i < 100; i++) doca_pe_progress(pe);
        CHECK(doca_ctx_stop(ctx) == DOCA_SUCCESS, "stop with nothing in flight");
        CHECK(rec.last == DOCA_CTX_STATE_IDLE, "the synchronous stop reported IDLE before returning");
        CHECK(doca_ctx_stop(ctx) == DOCA_SUCCESS, "a second stop (cleanup)");
    }
    CHECK(rec.idle_callbacks_while_running == 0, "no IDLE callback while RUNNING");
    CHECK(rec.idle_callbacks == 7, "one IDLE callback per stop");

    CHECK(doca_sync_event_destroy(se) == DOCA_SUCCESS, "destroy");
    CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS, "pe destroy");
}

/* A task callback that frees its task and stops the ctx, as DOCA's samples end their flows. */
struct in_callback {
    struct doca_ctx *ctx;
    bool inside_task_callback;
    doca_error_t stop_result;
    int stops, nested_state_callbacks, stopping_callbacks, idle_callbacks;
};

static void in_callback_state_cb(const union doca_data user_data, struct doca_ctx *ctx,
                                 enum doca_ctx_states prev, enum doca_ctx_states next) {
    struct in_callback *r = user_data.ptr;
    (void)ctx;
    (void)prev;
    if (r->inside_task_callback) r->nested_state_callbacks++;
    if (next == DOCA_CTX_STATE_STOPPING) r->stopping_callbacks++;
    if (next == DOCA_CTX_STATE_IDLE) r->idle_callbacks++;
}

static void stop_from_task_callback(struct doca_sync_event_task_wait_eq *task, union doca_data task_ud,
                                    union doca_data ctx_ud) {
    struct in_callback *r = ctx_ud.ptr;
    (void)task_ud;
    r->inside_task_callback = true;
    doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(task));
    r->stop_result = doca_ctx_stop(r->ctx);
    r->stops++;
    r->inside_task_callback = false;
}

static void stop_inside_callback(void) {
    struct in_callback rec = {0};
    struct doca_pe *pe = NULL;
    struct doca_sync_event *se = NULL;
    union doca_data ud = {.ptr = &rec};
    struct doca_sync_event_task_wait_eq *task = NULL;
    enum doca_ctx_states s;

    CHECK(doca_pe_create(&pe) == DOCA_SUCCESS, "pe_create");
    CHECK(doca_sync_event_create(&se) == DOCA_SUCCESS, "sync_event_create");
    rec.ctx = doca_sync_event_as_ctx(se);
    doca_ctx_set_user_data(rec.ctx, ud);
    doca_ctx_set_state_changed_cb(rec.ctx, in_callback_state_cb);
    CHECK(doca_sync_event_task_wait_eq_set_conf(se, stop_from_task_callback, stop_from_task_callback, 4) ==
              DOCA_SUCCESS,
          "wait_eq set_conf");
    CHECK(doca_pe_connect_ctx(pe, rec.ctx) == DOCA_SUCCESS, "connect");
    for (int round = 0; round < 2; round++) {
        rec.stops = rec.stopping_callbacks = rec.idle_callbacks = 0;
        CHECK(doca_ctx_start(rec.ctx) == DOCA_SUCCESS, "start");
        while (doca_pe_progress(pe))
            ;
        /* The counter is 0: the task is ready at once; its callback is the last user of the ctx. */
        CHECK(doca_sync_event_task_wait_eq_alloc_init(se, 0, UINT64_MAX, ud, &task) == DOCA_SUCCESS,
              "wait_eq alloc_init");
        CHECK(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(task)) == DOCA_SUCCESS, "submit");
        for (long i = 0; i < 10000000 && rec.stops == 0; i++) doca_pe_progress(pe);
        CHECK(rec.stops == 1, "the task callback ran and stopped the ctx");
        CHECK(rec.stop_result == DOCA_ERROR_IN_PROGRESS, "a stop inside a callback is IN_PROGRESS");
        doca_ctx_get_state(rec.ctx, &s);
        CHECK(s == DOCA_CTX_STATE_STOPPING, "STOPPING when the callback has returned");
        CHECK(rec.idle_callbacks == 0, "no IDLE callback yet");
        progress_until_idle(pe, rec.ctx);
        CHECK(rec.stopping_callbacks == 1 && rec.idle_callbacks == 1,
              "STOPPING then IDLE reported by progress");
    }
    CHECK(rec.nested_state_callbacks == 0, "no state callback nested inside the task callback");
    CHECK(doca_sync_event_destroy(se) == DOCA_SUCCESS, "destroy");
    CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS, "pe destroy");
}

/* The exporter's side of the remote-PCI event: a child imports it, waits for 1, sets 2. */
static void remote_pci(struct doca_dev *dev) {
    struct doca_sync_event *se = NULL;
    const uint8_t *blob = NULL;
    size_t blob_len = 0;

    CHECK(doca_sync_event_cap_is_export_to_remote_pci_supported(doca_dev_as_devinfo(dev)) == DOCA_SUCCESS,
          "export to remote PCI capability");
    CHECK(doca_sync_event_cap_is_create_from_export_supported(doca_dev_as_devinfo(dev)) == DOCA_SUCCESS,
          "create from export capability");
    CHECK(doca_sync_event_create(&se) == DOCA_SUCCESS, "create");
    CHECK(doca_sync_event_export_to_remote_pci(se, dev, &blob, &blob_len) == DOCA_ERROR_NOT_PERMITTED,
          "export without a remote-PCI publisher");
    CHECK(doca_sync_event_add_publisher_location_remote_pci(se) == DOCA_SUCCESS, "remote-PCI publisher");
    CHECK(doca_sync_event_add_subscriber_location_cpu(se, dev) == DOCA_SUCCESS, "CPU subscriber");
    CHECK(doca_sync_event_export_to_remote_pci(se, dev, &blob, &blob_len) == DOCA_ERROR_BAD_STATE,
          "export before start");
    CHECK(doca_sync_event_start(se) == DOCA_SUCCESS, "start");
    CHECK(doca_sync_event_export_to_remote_pci(se, dev, &blob, &blob_len) == DOCA_SUCCESS, "export");
    CHECK(doca_sync_event_create_from_export(dev, (const uint8_t *)"junk", 4,
                                             &(struct doca_sync_event *){NULL}) == DOCA_ERROR_INVALID_VALUE,
          "a foreign descriptor is refused");

    pid_t pid = fork();
    if (pid == 0) {
        /* The other side: its own event over the same counter. */
        struct doca_sync_event *imported = NULL;
        uint64_t v = 0;
        if (doca_sync_event_create_from_export(dev, blob, blob_len, &imported) != DOCA_SUCCESS ||
            doca_sync_event_start(imported) != DOCA_SUCCESS)
            _exit(2);
        if (doca_sync_event_wait_eq(imported, 1, UINT64_MAX) != DOCA_SUCCESS) _exit(3);
        doca_sync_event_get(imported, &v);
        if (v != 1) _exit(4);
        doca_sync_event_update_set(imported, 2);
        doca_sync_event_stop(imported);
        _exit(doca_sync_event_destroy(imported) == DOCA_SUCCESS ? 0 : 5);
    }
    CHECK(doca_sync_event_update_set(se, 1) == DOCA_SUCCESS, "exporter sets 1");
    /* Wait for the importer's 2, or for the importer to end (then the value tells). */
    uint64_t v = 0;
    int status = 0;
    bool child_done = false;
    for (;;) {
        doca_sync_event_get(se, &v);
        if (v == 2) break;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            child_done = true;
            doca_sync_event_get(se, &v);
            break;
        }
        usleep(200);
    }
    CHECK(v == 2, "the exporter sees the importer's 2");
    if (v == 2)
        CHECK(doca_sync_event_wait_eq_yield(se, 2, UINT64_MAX) == DOCA_SUCCESS,
              "wait_eq_yield on a reached value");
    if (!child_done) waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the importing process succeeded");
    CHECK(doca_sync_event_stop(se) == DOCA_SUCCESS, "stop");
    CHECK(doca_sync_event_destroy(se) == DOCA_SUCCESS, "destroy");
}

int main(void) {
    struct doca_devinfo **list = NULL;
    uint32_t n = 0;
    struct doca_dev *dev = NULL;

    ctx_rules();
    stop_inside_callback();

    CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS && n > 0, "device list");
    for (uint32_t i = 0; i < n; i++) {
        /* The DOCA 2.7+ capability names answer as the older ones. */
        CHECK(doca_dpa_cap_is_supported(list[i]) == doca_devinfo_get_is_dpa_supported(list[i]),
              "doca_dpa_cap_is_supported");
        doca_error_t rdma = doca_rdma_cap_task_send_is_supported(list[i]);
        CHECK(rdma == DOCA_SUCCESS || rdma == DOCA_ERROR_NOT_SUPPORTED, "rdma send capability");
        CHECK(doca_rdma_cap_task_write_is_supported(list[i]) == rdma, "rdma write capability");
        CHECK(doca_rdma_cap_task_receive_is_supported(list[i]) == rdma, "rdma receive capability");
        CHECK(doca_rdma_cap_task_read_is_supported(list[i]) == rdma, "rdma read capability");
    }
    CHECK(doca_rdma_cap_task_send_is_supported(NULL) == DOCA_ERROR_INVALID_VALUE, "NULL devinfo");
    if (n > 0) CHECK(doca_dev_open(list[0], &dev) == DOCA_SUCCESS, "open a device");
    doca_devinfo_destroy_list(list);
    if (dev) {
        remote_pci(dev);
        CHECK(doca_dev_close(dev) == DOCA_SUCCESS, "close");
    }

    if (failures) {
        fprintf(stderr, "ctx_rules_sample: %d check(s) failed\n", failures);
        return EXIT_FAILURE;
    }
    printf("ctx_rules_sample: all checks passed\n");
    return EXIT_SUCCESS;
}
