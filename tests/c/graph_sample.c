/*
 * A DOCA Graph program written the way DOCA's own samples are, against the public headers only:
 * a DMA context on a progress engine, a graph of three nodes per instance (copy A: source ->
 * middle; a user node that checks the middle; copy B: middle -> destination), four instances
 * submitted together, each run twice (resubmitted from the completion callback) with a new
 * pattern, then a run whose check fails on purpose so that copy B never runs and the error
 * callback comes instead. Exits non-zero on any failure.
 */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DOCA_LOG_REGISTER(GRAPH_SAMPLE);

#define NUM_INSTANCES 4
#define SLOT_SIZE 8192
#define RUNS 2

struct instance_state {
    struct doca_graph_instance *instance;
    struct doca_dma_task_memcpy *copy_a;
    struct doca_dma_task_memcpy *copy_b;
    struct doca_buf *src, *mid_dst, *mid_src, *dst;
    char *src_mem, *mid_mem, *dst_mem;
    int runs_done;
    int checks;
    int break_check; /* the user node fails when set */
    unsigned pattern;
};

struct resources {
    struct doca_dev *dev;
    struct doca_mmap *mmap;
    struct doca_buf_inventory *inventory;
    struct doca_pe *pe;
    struct doca_dma *dma;
    struct doca_ctx *ctx;
    char *memory;
    size_t memory_len;
    struct doca_graph *graph;
    struct doca_graph_node *node_a, *node_check, *node_b;
    struct instance_state inst[NUM_INSTANCES];
    int completions;
    int errors;
    int task_callbacks; /* must stay 0: a graph's tasks do not call their own callbacks */
    int failed;
};

static void task_callback(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
                          union doca_data ctx_user_data) {
    struct resources *res = (struct resources *)ctx_user_data.ptr;
    (void)task;
    (void)task_user_data;
    res->task_callbacks++;
}

static void fill(struct instance_state *s) {
    for (size_t i = 0; i < SLOT_SIZE; i++) s->src_mem[i] = (char)(i * 7 + s->pattern);
    memset(s->mid_mem, 0, SLOT_SIZE);
    memset(s->dst_mem, 0, SLOT_SIZE);
    doca_buf_reset_data_len(s->mid_dst);
    doca_buf_reset_data_len(s->dst);
}

/* The user node: copy A has landed in the middle buffer, copy B has not started. */
static doca_error_t check_middle(void *cookie) {
    struct instance_state *s = (struct instance_state *)cookie;
    s->checks++;
    if (memcmp(s->mid_mem, s->src_mem, SLOT_SIZE) != 0) {
        DOCA_LOG_ERR("the middle buffer does not hold the source");
        return DOCA_ERROR_UNEXPECTED;
    }
    for (size_t i = 0; i < SLOT_SIZE; i++)
        if (s->dst_mem[i] != 0) {
            DOCA_LOG_ERR("copy B ran before the check");
            return DOCA_ERROR_UNEXPECTED;
        }
    return s->break_check ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
}

static void graph_completed(struct doca_graph_instance *instance, union doca_data instance_user_data,
                            union doca_data graph_user_data) {
    struct resources *res = (struct resources *)graph_user_data.ptr;
    struct instance_state *s = &res->inst[instance_user_data.u64];
    (void)instance;
    res->completions++;
    if (memcmp(s->dst_mem, s->src_mem, SLOT_SIZE) != 0) {
        DOCA_LOG_ERR("instance %lu: the destination does not hold the source",
                     (unsigned long)instance_user_data.u64);
        res->failed = 1;
    }
    if (++s->runs_done < RUNS) { /* run again, with a new pattern */
        s->pattern += 13;
        fill(s);
        if (doca_graph_instance_submit(s->instance) != DOCA_SUCCESS) res->failed = 1;
    }
}

static void graph_failed(struct doca_graph_instance *instance, union doca_data instance_user_data,
                         union doca_data graph_user_data) {
    struct resources *res = (struct resources *)graph_user_data.ptr;
    (void)instance;
    (void)instance_user_data;
    res->errors++;
}

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        doca_error_t check_result_ = (call);                                                                 \
        if (check_result_ != DOCA_SUCCESS) {                                                                 \
            DOCA_LOG_ERR("%s failed: %s", #call, doca_error_get_descr(check_result_));                       \
            return check_result_;                                                                            \
        }                                                                                                    \
    } while (0)

static doca_error_t open_dma_device(struct doca_dev **dev) {
    struct doca_devinfo **dev_list;
    uint32_t nb_devs = 0;
    doca_error_t result = doca_devinfo_create_list(&dev_list, &nb_devs);
    if (result != DOCA_SUCCESS) return result;
    result = DOCA_ERROR_NOT_FOUND;
    for (uint32_t i = 0; i < nb_devs && result != DOCA_SUCCESS; i++)
        if (doca_dma_cap_task_memcpy_is_supported(dev_list[i]) == DOCA_SUCCESS)
            result = doca_dev_open(dev_list[i], dev);
    doca_devinfo_destroy_list(dev_list);
    return result;
}

static doca_error_t create_resources(struct resources *res) {
    union doca_data ctx_user_data = {.ptr = res};
    enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

    CHECK(open_dma_device(&res->dev));
    res->memory_len = (size_t)3 * NUM_INSTANCES * SLOT_SIZE;
    res->memory = calloc(1, res->memory_len);
    if (res->memory == NULL) return DOCA_ERROR_NO_MEMORY;
    CHECK(doca_mmap_create(&res->mmap));
    CHECK(doca_mmap_set_memrange(res->mmap, res->memory, res->memory_len));
    CHECK(doca_mmap_add_dev(res->mmap, res->dev));
    CHECK(doca_mmap_set_permissions(res->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
    CHECK(doca_mmap_start(res->mmap));
    CHECK(doca_buf_inventory_create(4 * NUM_INSTANCES, &res->inventory));
    CHECK(doca_buf_inventory_start(res->inventory));
    CHECK(doca_pe_create(&res->pe));
    CHECK(doca_dma_create(res->dev, &res->dma));
    res->ctx = doca_dma_as_ctx(res->dma);
    CHECK(doca_ctx_set_user_data(res->ctx, ctx_user_data));
    CHECK(doca_dma_task_memcpy_set_conf(res->dma, task_callback, task_callback, 2 * NUM_INSTANCES));
    CHECK(doca_pe_connect_ctx(res->pe, res->ctx));
    CHECK(doca_ctx_start(res->ctx));
    CHECK(doca_ctx_get_state(res->ctx, &state));
    while (state != DOCA_CTX_STATE_RUNNING) {
        doca_pe_progress(res->pe);
        CHECK(doca_ctx_get_state(res->ctx, &state));
    }
    return DOCA_SUCCESS;
}

/* copy A -> check -> copy B, started once the DMA ctx runs. */
static doca_error_t create_graph(struct resources *res) {
    union doca_data graph_user_data = {.ptr = res};
    CHECK(doca_graph_create(res->pe, &res->graph));
    CHECK(doca_graph_set_conf(res->graph, graph_completed, graph_failed, NUM_INSTANCES));
    CHECK(doca_graph_set_user_data(res->graph, graph_user_data));
    CHECK(doca_graph_node_create_from_ctx(res->graph, res->ctx, &res->node_a));
    CHECK(doca_graph_node_create_from_user(res->graph, check_middle, &res->node_check));
    CHECK(doca_graph_node_create_from_ctx(res->graph, res->ctx, &res->node_b));
    CHECK(doca_graph_add_dependency(res->graph, res->node_a, res->node_check));
    CHECK(doca_graph_add_dependency(res->graph, res->node_check, res->node_b));
    CHECK(doca_graph_start(res->graph));
    return DOCA_SUCCESS;
}

static doca_error_t create_instance(struct resources *res, uint64_t i) {
    struct instance_state *s = &res->inst[i];
    union doca_data instance_user_data = {.u64 = i};
    union doca_data none = {0};
    s->src_mem = res->memory + (3 * i) * SLOT_SIZE;
    s->mid_mem = s->src_mem + SLOT_SIZE;
    s->dst_mem = s->mid_mem + SLOT_SIZE;
    s->pattern = (unsigned)(i * 101);
    CHECK(doca_buf_inventory_buf_get_by_data(res->inventory, res->mmap, s->src_mem, SLOT_SIZE, &s->src));
    CHECK(doca_buf_inventory_buf_get_by_addr(res->inventory, res->mmap, s->mid_mem, SLOT_SIZE, &s->mid_dst));
    CHECK(doca_buf_inventory_buf_get_by_data(res->inventory, res->mmap, s->mid_mem, SLOT_SIZE, &s->mid_src));
    CHECK(doca_buf_inventory_buf_get_by_addr(res->inventory, res->mmap, s->dst_mem, SLOT_SIZE, &s->dst));
    CHECK(doca_dma_task_memcpy_alloc_init(res->dma, s->src, s->mid_dst, none, &s->copy_a));
    CHECK(doca_dma_task_memcpy_alloc_init(res->dma, s->mid_src, s->dst, none, &s->copy_b));
    CHECK(doca_graph_instance_create(res->graph, &s->instance));
    CHECK(doca_graph_instance_set_user_data(s->instance, instance_user_data));
    CHECK(doca_graph_instance_set_ctx_node_data(s->instance, res->node_a,
                                                doca_dma_task_memcpy_as_task(s->copy_a)));
    CHECK(doca_graph_instance_set_user_node_data(s->instance, res->node_check, s));
    CHECK(doca_graph_instance_set_ctx_node_data(s->instance, res->node_b,
                                                doca_dma_task_memcpy_as_task(s->copy_b)));
    fill(s);
    return DOCA_SUCCESS;
}

static void destroy_resources(struct resources *res) {
    enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
    for (int i = 0; i < NUM_INSTANCES; i++) {
        struct instance_state *s = &res->inst[i];
        if (s->instance) doca_graph_instance_destroy(s->instance);
        if (s->copy_a) doca_task_free(doca_dma_task_memcpy_as_task(s->copy_a));
        if (s->copy_b) doca_task_free(doca_dma_task_memcpy_as_task(s->copy_b));
        struct doca_buf *bufs[] = {s->src, s->mid_dst, s->mid_src, s->dst};
        for (int b = 0; b < 4; b++)
            if (bufs[b]) doca_buf_dec_refcount(bufs[b], NULL);
    }
    if (res->graph) {
        doca_graph_stop(res->graph);
        doca_graph_destroy(res->graph);
    }
    if (res->ctx) {
        doca_ctx_stop(res->ctx);
        doca_ctx_get_state(res->ctx, &state);
        while (state != DOCA_CTX_STATE_IDLE) {
            doca_pe_progress(res->pe);
            doca_ctx_get_state(res->ctx, &state);
        }
    }
    if (res->dma) doca_dma_destroy(res->dma);
    if (res->pe) doca_pe_destroy(res->pe);
    if (res->inventory) doca_buf_inventory_destroy(res->inventory);
    if (res->mmap) doca_mmap_destroy(res->mmap);
    if (res->dev) doca_dev_close(res->dev);
    free(res->memory);
}

static doca_error_t run(struct resources *res) {
    CHECK(create_resources(res));
    CHECK(create_graph(res));
    for (uint64_t i = 0; i < NUM_INSTANCES; i++) CHECK(create_instance(res, i));
    for (int i = 0; i < NUM_INSTANCES; i++) CHECK(doca_graph_instance_submit(res->inst[i].instance));
    while (res->completions + res->errors < NUM_INSTANCES * RUNS && !res->failed) doca_pe_progress(res->pe);

    /* A failing check: copy B must not run, the error callback must come. */
    struct instance_state *s = &res->inst[0];
    s->break_check = 1;
    s->runs_done = RUNS; /* no resubmission */
    fill(s);
    CHECK(doca_graph_instance_submit(s->instance));
    while (res->errors == 0 && !res->failed) doca_pe_progress(res->pe);
    for (size_t i = 0; i < SLOT_SIZE; i++)
        if (s->dst_mem[i] != 0) {
            DOCA_LOG_ERR("copy B ran after the failed check");
            res->failed = 1;
            break;
        }
    return DOCA_SUCCESS;
}

int main(void) {
    struct resources res;
    memset(&res, 0, sizeof res);
    doca_error_t result = run(&res);
    int checks = 0;
    for (int i = 0; i < NUM_INSTANCES; i++) checks += res.inst[i].checks;
    printf("graph_sample: %d completions, %d errors, %d checks, %d task callbacks\n", res.completions,
           res.errors, checks, res.task_callbacks);
    int ok = result == DOCA_SUCCESS && !res.failed && res.completions == NUM_INSTANCES * RUNS &&
             res.errors == 1 && checks == NUM_INSTANCES * RUNS + 1 && res.task_callbacks == 0;
    destroy_resources(&res);
    if (!ok) fprintf(stderr, "graph_sample: FAILED\n");
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
