/*
 * A DPA program written the way DOCA's DPA samples are, against the public headers only: a DPA
 * context on the DPU PF with DPA support, device functions registered in an application (skiff's
 * stand-in for the DPACC program), a chain of two kernels on sync events, a DPA thread woken by
 * completions of async-ops memcpys it posts itself, heap memory and an RPC. Exits non-zero on any
 * failure.
 */
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_dpa_dev.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_sync_event.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DOCA_LOG_REGISTER(DPA_SAMPLE);

#include "dpa_device.h"

#define NUM_COPIES 16
#define COPY_SIZE 256

/* What the DPA thread works on (host memory the emulated DPA reads directly). */
struct copy_job {
    doca_dpa_dev_completion_t comp;
    doca_dpa_dev_async_ops_t ops;
    doca_dpa_dev_mmap_t mmap;
    uint64_t src;
    uint64_t dst;
    doca_dpa_dev_sync_event_t done_event;
    volatile uint32_t completed;
};

/* ---- device code ---- */

static void square_kernel(uint64_t in, uint64_t out) {
    uint64_t *o = (uint64_t *)out;
    unsigned rank = doca_dpa_dev_thread_rank();
    o[rank] = ((const uint64_t *)in)[rank] * ((const uint64_t *)in)[rank];
}

static void sum_kernel(uint64_t in, uint64_t out) {
    const uint64_t *v = (const uint64_t *)in;
    uint64_t s = 0;
    for (unsigned i = 0; i < 4; ++i) s += v[i];
    *(uint64_t *)out = s;
}

/* Completion-driven: count completions, re-arm, signal the host after the last one. */
static void copy_thread(uint64_t arg) {
    struct copy_job *job = (struct copy_job *)arg;
    doca_dpa_dev_completion_element_t e;
    uint32_t n = 0;
    while (doca_dpa_dev_get_completion(job->comp, &e)) {
        if (doca_dpa_dev_get_completion_type(e) != DOCA_DPA_DEV_COMP_SEND)
            DOCA_DPA_DEV_LOG_ERR("copy failed");
        ++n;
    }
    if (n) doca_dpa_dev_completion_ack(job->comp, n);
    job->completed += n;
    doca_dpa_dev_completion_request_notification(job->comp);
    if (job->completed == NUM_COPIES) {
        doca_dpa_dev_sync_event_update_set(job->done_event, 1);
        doca_dpa_dev_thread_finish();
        return;
    }
    doca_dpa_dev_thread_reschedule();
}

/* RPC: arm the completion context and post every copy; only the last one flushes. */
static uint64_t start_copies(uint64_t arg) {
    struct copy_job *job = (struct copy_job *)arg;
    doca_dpa_dev_completion_request_notification(job->comp);
    for (uint64_t i = 0; i < NUM_COPIES; ++i) {
        uint32_t flags = i + 1 == NUM_COPIES ? DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH : DOCA_DPA_DEV_SUBMIT_FLAG_NONE;
        doca_dpa_dev_post_memcpy(job->ops, job->mmap, job->dst + i * COPY_SIZE, job->mmap,
                                 job->src + i * COPY_SIZE, COPY_SIZE, flags);
    }
    return NUM_COPIES;
}

/* ---- host ---- */

static struct doca_sync_event *make_event(struct doca_dpa *dpa, struct doca_dev *dev) {
    struct doca_sync_event *ev;
    CHECK(doca_sync_event_create(&ev));
    CHECK(doca_sync_event_add_publisher_location_dpa(ev, dpa));
    CHECK(doca_sync_event_add_subscriber_location_cpu(ev, dev));
    CHECK(doca_sync_event_start(ev));
    return ev;
}

static void free_event(struct doca_sync_event *ev) {
    CHECK(doca_sync_event_stop(ev));
    CHECK(doca_sync_event_destroy(ev));
}

int main(void) {
    struct doca_dev *dev = open_dpa_device();
    struct doca_dpa_app *app;
    struct doca_dpa *dpa;
    CHECK(skiff_dpa_app_create("dpa_sample", &app));
    CHECK(skiff_dpa_app_add_kernel(app, (doca_dpa_func_t *)square_kernel, 2, "square_kernel"));
    CHECK(skiff_dpa_app_add_kernel(app, (doca_dpa_func_t *)sum_kernel, 2, "sum_kernel"));
    CHECK(skiff_dpa_app_add_kernel(app, (doca_dpa_func_t *)copy_thread, 1, "copy_thread"));
    CHECK(skiff_dpa_app_add_rpc(app, (doca_dpa_func_t *)start_copies, 1, "start_copies"));
    CHECK(doca_dpa_create(dev, &dpa));
    CHECK(doca_dpa_set_app(dpa, app));
    CHECK(doca_dpa_start(dpa));

    /* 1. Two chained kernels on the DPA heap: squares of 1..4, then their sum (30). */
    uint64_t values[4] = {1, 2, 3, 4}, sum = 0;
    doca_dpa_dev_uintptr_t in, squares, out;
    CHECK(doca_dpa_mem_alloc(dpa, sizeof(values), &in));
    CHECK(doca_dpa_mem_alloc(dpa, sizeof(values), &squares));
    CHECK(doca_dpa_mem_alloc(dpa, sizeof(uint64_t), &out));
    CHECK(doca_dpa_h2d_memcpy(dpa, in, values, sizeof(values)));
    struct doca_sync_event *go = make_event(dpa, dev), *mid = make_event(dpa, dev),
                           *end = make_event(dpa, dev);
    CHECK(doca_dpa_kernel_launch_update_set(dpa, go, 0, mid, 1, 4, (doca_dpa_func_t *)square_kernel, in,
                                            squares));
    CHECK(doca_dpa_kernel_launch_update_set(dpa, mid, 0, end, 1, 1, (doca_dpa_func_t *)sum_kernel, squares,
                                            out));
    CHECK(doca_sync_event_update_set(go, 1));
    CHECK(doca_sync_event_wait_gt(end, 0, 0));
    CHECK(doca_dpa_d2h_memcpy(dpa, &sum, out, sizeof(sum)));
    if (sum != 30) {
        DOCA_LOG_ERR("kernel chain computed %lu, expected 30", (unsigned long)sum);
        return 1;
    }

    /* 2. A DPA thread driven by the completions of its own async-ops copies. */
    static char memory[2 * NUM_COPIES * COPY_SIZE];
    for (size_t i = 0; i < sizeof(memory) / 2; ++i) memory[i] = (char)(i * 13 + 5);
    struct doca_mmap *mmap;
    CHECK(doca_mmap_create(&mmap));
    CHECK(doca_mmap_add_dev(mmap, dev));
    CHECK(doca_mmap_set_memrange(mmap, memory, sizeof(memory)));
    CHECK(doca_mmap_start(mmap));

    struct copy_job job;
    memset(&job, 0, sizeof(job));
    struct doca_sync_event *done = make_event(dpa, dev);
    struct doca_dpa_thread *thread;
    struct doca_dpa_completion *comp;
    struct doca_dpa_async_ops *ops;
    CHECK(doca_dpa_thread_create(dpa, &thread));
    CHECK(doca_dpa_thread_set_func_arg(thread, (doca_dpa_func_t *)copy_thread, (uint64_t)(uintptr_t)&job));
    CHECK(doca_dpa_thread_start(thread));
    CHECK(doca_dpa_completion_create(dpa, NUM_COPIES, &comp));
    CHECK(doca_dpa_completion_set_thread(comp, thread));
    CHECK(doca_dpa_completion_start(comp));
    CHECK(doca_dpa_thread_run(thread));
    CHECK(doca_dpa_async_ops_create(dpa, NUM_COPIES, 42, &ops));
    CHECK(doca_dpa_async_ops_attach(ops, comp));
    CHECK(doca_dpa_async_ops_start(ops));
    CHECK(doca_dpa_completion_get_dpa_handle(comp, &job.comp));
    CHECK(doca_dpa_async_ops_get_dpa_handle(ops, &job.ops));
    CHECK(doca_mmap_dev_get_dpa_handle(mmap, dev, &job.mmap));
    CHECK(doca_sync_event_get_dpa_handle(done, dpa, &job.done_event));
    job.src = (uint64_t)(uintptr_t)memory;
    job.dst = job.src + sizeof(memory) / 2;

    uint64_t posted = 0;
    CHECK(doca_dpa_rpc(dpa, (doca_dpa_func_t *)start_copies, &posted, (uint64_t)(uintptr_t)&job));
    CHECK(doca_sync_event_wait_gt(done, 0, 0));
    if (posted != NUM_COPIES || job.completed != NUM_COPIES ||
        memcmp(memory, memory + sizeof(memory) / 2, sizeof(memory) / 2) != 0) {
        DOCA_LOG_ERR("copies: posted %lu, completed %u, data %s", (unsigned long)posted, job.completed,
                     memcmp(memory, memory + sizeof(memory) / 2, sizeof(memory) / 2) ? "differs" : "ok");
        return 1;
    }
    CHECK(doca_dpa_peek_at_last_error(dpa));

    /* Teardown in reverse order. */
    CHECK(doca_dpa_async_ops_stop(ops));
    CHECK(doca_dpa_async_ops_destroy(ops));
    CHECK(doca_dpa_thread_stop(thread));
    CHECK(doca_dpa_completion_stop(comp));
    CHECK(doca_dpa_completion_destroy(comp));
    CHECK(doca_dpa_thread_destroy(thread));
    CHECK(doca_mmap_stop(mmap));
    CHECK(doca_mmap_destroy(mmap));
    free_event(done);
    free_event(go);
    free_event(mid);
    free_event(end);
    CHECK(doca_dpa_mem_free(dpa, in));
    CHECK(doca_dpa_mem_free(dpa, squares));
    CHECK(doca_dpa_mem_free(dpa, out));
    CHECK(doca_dpa_destroy(dpa));
    CHECK(skiff_dpa_app_destroy(app));
    CHECK(doca_dev_close(dev));
    printf("dpa sample: kernel chain sum %lu, %u copies completed on a DPA thread\n", (unsigned long)sum,
           job.completed);
    return 0;
}
