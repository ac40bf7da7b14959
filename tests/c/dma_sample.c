/*
 * A DMA memcpy program written the way DOCA's own samples are, against the public headers only:
 * pick a device by its memcpy capability, register memory (mmap + buf inventory), connect a DMA
 * context to a progress engine, configure the memcpy task, copy 255 buffers while polling, copy
 * them again in notification mode (epoll on the progress engine's handle), stop, tear down.
 * Exits non-zero on any failure.
 */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

DOCA_LOG_REGISTER(DMA_SAMPLE);

#define NUM_TASKS 255
#define SLOT_SIZE 4096

struct dma_resources {
    struct doca_dev *dev;
    struct doca_mmap *mmap;
    struct doca_buf_inventory *inventory;
    struct doca_pe *pe;
    struct doca_dma *dma;
    struct doca_ctx *ctx;
    char *memory; /* NUM_TASKS source slots followed by NUM_TASKS destination slots */
    size_t memory_len;
    struct doca_buf *src[NUM_TASKS];
    struct doca_buf *dst[NUM_TASKS];
    size_t completed;
    size_t failed;
    enum doca_ctx_states state;
};

static void memcpy_completed_callback(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
                                      union doca_data ctx_user_data) {
    struct dma_resources *res = (struct dma_resources *)ctx_user_data.ptr;
    (void)task_user_data;
    res->completed++;
    doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void memcpy_error_callback(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
                                  union doca_data ctx_user_data) {
    struct dma_resources *res = (struct dma_resources *)ctx_user_data.ptr;
    struct doca_task *generic = doca_dma_task_memcpy_as_task(task);
    DOCA_LOG_ERR("memcpy task %lu failed: %s", (unsigned long)task_user_data.u64,
                 doca_error_get_descr(doca_task_get_status(generic)));
    res->failed++;
    doca_task_free(generic);
}

static void dma_state_changed_callback(const union doca_data user_data, struct doca_ctx *ctx,
                                       enum doca_ctx_states prev_state, enum doca_ctx_states next_state) {
    struct dma_resources *res = (struct dma_resources *)user_data.ptr;
    (void)ctx;
    (void)prev_state;
    res->state = next_state;
}

static doca_error_t open_dma_device(struct doca_dev **dev) {
    struct doca_devinfo **dev_list;
    uint32_t nb_devs = 0;
    doca_error_t result = doca_devinfo_create_list(&dev_list, &nb_devs);
    if (result != DOCA_SUCCESS) return result;
    result = DOCA_ERROR_NOT_FOUND;
    for (uint32_t i = 0; i < nb_devs; i++) {
        uint64_t max_buf_size = 0;
        if (doca_dma_cap_task_memcpy_is_supported(dev_list[i]) != DOCA_SUCCESS) continue;
        if (doca_dma_cap_task_memcpy_get_max_buf_size(dev_list[i], &max_buf_size) != DOCA_SUCCESS ||
            max_buf_size < SLOT_SIZE)
            continue;
        result = doca_dev_open(dev_list[i], dev);
        if (result == DOCA_SUCCESS) break;
    }
    doca_devinfo_destroy_list(dev_list);
    return result;
}

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        doca_error_t check_result_ = (call);                                                                 \
        if (check_result_ != DOCA_SUCCESS) {                                                                 \
            DOCA_LOG_ERR("%s failed: %s", #call, doca_error_get_descr(check_result_));                       \
            return check_result_;                                                                            \
        }                                                                                                    \
    } while (0)

static doca_error_t create_resources(struct dma_resources *res) {
    union doca_data ctx_user_data = {.ptr = res};

    CHECK(open_dma_device(&res->dev));
    res->memory_len = 2 * NUM_TASKS * SLOT_SIZE;
    res->memory = malloc(res->memory_len);
    if (res->memory == NULL) return DOCA_ERROR_NO_MEMORY;
    CHECK(doca_mmap_create(&res->mmap));
    CHECK(doca_mmap_set_memrange(res->mmap, res->memory, res->memory_len));
    CHECK(doca_mmap_add_dev(res->mmap, res->dev));
    CHECK(doca_mmap_set_permissions(res->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
    CHECK(doca_mmap_start(res->mmap));
    CHECK(doca_buf_inventory_create(2 * NUM_TASKS, &res->inventory));
    CHECK(doca_buf_inventory_start(res->inventory));

    CHECK(doca_pe_create(&res->pe));
    CHECK(doca_dma_create(res->dev, &res->dma));
    res->ctx = doca_dma_as_ctx(res->dma);
    CHECK(doca_ctx_set_user_data(res->ctx, ctx_user_data));
    CHECK(doca_ctx_set_state_changed_cb(res->ctx, dma_state_changed_callback));
    CHECK(
        doca_dma_task_memcpy_set_conf(res->dma, memcpy_completed_callback, memcpy_error_callback, NUM_TASKS));
    CHECK(doca_pe_connect_ctx(res->pe, res->ctx));
    CHECK(doca_ctx_start(res->ctx));
    while (res->state != DOCA_CTX_STATE_RUNNING) doca_pe_progress(res->pe);
    return DOCA_SUCCESS;
}

/* Fills the sources with a pattern for this run, empties the destinations, submits every copy. */
static doca_error_t submit_copies(struct dma_resources *res, int run) {
    char *src_base = res->memory;
    char *dst_base = res->memory + NUM_TASKS * SLOT_SIZE;

    res->completed = 0;
    res->failed = 0;
    for (size_t i = 0; i < res->memory_len / 2; i++) src_base[i] = (char)(i * 31 + run);
    memset(dst_base, 0, res->memory_len / 2);
    for (uint32_t i = 0; i < NUM_TASKS; i++) {
        struct doca_dma_task_memcpy *task;
        union doca_data task_user_data = {.u64 = i};
        if (res->src[i] == NULL) {
            CHECK(doca_buf_inventory_buf_get_by_data(res->inventory, res->mmap, src_base + i * SLOT_SIZE,
                                                     SLOT_SIZE, &res->src[i]));
            CHECK(doca_buf_inventory_buf_get_by_addr(res->inventory, res->mmap, dst_base + i * SLOT_SIZE,
                                                     SLOT_SIZE, &res->dst[i]));
        }
        CHECK(doca_buf_reset_data_len(res->dst[i]));
        CHECK(doca_dma_task_memcpy_alloc_init(res->dma, res->src[i], res->dst[i], task_user_data, &task));
        CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
    }
    return DOCA_SUCCESS;
}

static doca_error_t verify_copies(struct dma_resources *res) {
    if (res->failed != 0) {
        DOCA_LOG_ERR("%zu copies failed", res->failed);
        return DOCA_ERROR_IO_FAILED;
    }
    for (uint32_t i = 0; i < NUM_TASKS; i++) {
        size_t len = 0;
        CHECK(doca_buf_get_data_len(res->dst[i], &len));
        if (len != SLOT_SIZE ||
            memcmp(res->memory + i * SLOT_SIZE, res->memory + (NUM_TASKS + i) * SLOT_SIZE, SLOT_SIZE) != 0) {
            DOCA_LOG_ERR("copy %u: destination does not hold the source bytes (data_len %zu)", i, len);
            return DOCA_ERROR_UNEXPECTED;
        }
    }
    return DOCA_SUCCESS;
}

static doca_error_t run_polling(struct dma_resources *res) {
    CHECK(submit_copies(res, 1));
    while (res->completed + res->failed < NUM_TASKS) doca_pe_progress(res->pe);
    return verify_copies(res);
}

static doca_error_t run_notification(struct dma_resources *res) {
    doca_notification_handle_t handle;
    struct epoll_event event = {.events = EPOLLIN};
    int epoll_fd = epoll_create1(0);
    doca_error_t result = DOCA_SUCCESS;

    if (epoll_fd < 0) return DOCA_ERROR_OPERATING_SYSTEM;
    CHECK(doca_pe_get_notification_handle(res->pe, &handle));
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, handle, &event) != 0) {
        close(epoll_fd);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    CHECK(doca_pe_request_notification(res->pe));
    CHECK(submit_copies(res, 2));
    while (res->completed + res->failed < NUM_TASKS) {
        struct epoll_event ready;
        if (epoll_wait(epoll_fd, &ready, 1, 30000) != 1) {
            DOCA_LOG_ERR("no notification from the progress engine");
            result = DOCA_ERROR_TIME_OUT;
            break;
        }
        CHECK(doca_pe_clear_notification(res->pe, handle));
        while (doca_pe_progress(res->pe) != 0)
            ;
        CHECK(doca_pe_request_notification(res->pe));
    }
    close(epoll_fd);
    return result != DOCA_SUCCESS ? result : verify_copies(res);
}

static doca_error_t destroy_resources(struct dma_resources *res) {
    doca_error_t result = doca_ctx_stop(res->ctx);
    if (result != DOCA_SUCCESS && result != DOCA_ERROR_IN_PROGRESS) return result;
    while (res->state != DOCA_CTX_STATE_IDLE) doca_pe_progress(res->pe);
    for (uint32_t i = 0; i < NUM_TASKS; i++) {
        CHECK(doca_buf_dec_refcount(res->src[i], NULL));
        CHECK(doca_buf_dec_refcount(res->dst[i], NULL));
    }
    CHECK(doca_dma_destroy(res->dma));
    CHECK(doca_pe_destroy(res->pe));
    CHECK(doca_buf_inventory_destroy(res->inventory));
    CHECK(doca_mmap_destroy(res->mmap));
    CHECK(doca_dev_close(res->dev));
    free(res->memory);
    return DOCA_SUCCESS;
}

int main(void) {
    struct dma_resources res;
    memset(&res, 0, sizeof(res));

    if (create_resources(&res) != DOCA_SUCCESS) return EXIT_FAILURE;
    if (run_polling(&res) != DOCA_SUCCESS) return EXIT_FAILURE;
    printf("polling: %zu copies verified\n", res.completed);
    if (run_notification(&res) != DOCA_SUCCESS) return EXIT_FAILURE;
    printf("notification: %zu copies verified\n", res.completed);
    if (destroy_resources(&res) != DOCA_SUCCESS) return EXIT_FAILURE;
    printf("dma_sample: OK\n");
    return EXIT_SUCCESS;
}
