/*
 * Built against an installed libskiff-core only (tests/install/run.sh compiles it in an empty
 * folder with `pkg-config --cflags --libs skiff-doca`, then with find_package(skiff)): a DOCA
 * program that registers memory (mmap + buf inventory), copies it with DMA memcpy tasks driven by
 * a progress engine, and checks every destination byte. Exits non-zero on any failure.
 */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COPIES 16
#define COPY_SIZE (64 * 1024)

struct state {
    size_t done;
    size_t failed;
    enum doca_ctx_states ctx_state;
};

static void copied(struct doca_dma_task_memcpy *task, union doca_data task_data, union doca_data ctx_data) {
    (void)task_data;
    ((struct state *)ctx_data.ptr)->done++;
    doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void copy_failed(struct doca_dma_task_memcpy *task, union doca_data task_data,
                        union doca_data ctx_data) {
    struct doca_task *t = doca_dma_task_memcpy_as_task(task);
    fprintf(stderr, "copy %lu failed: %s\n", (unsigned long)task_data.u64,
            doca_error_get_descr(doca_task_get_status(t)));
    ((struct state *)ctx_data.ptr)->failed++;
    doca_task_free(t);
}

static void state_changed(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
                          enum doca_ctx_states next) {
    (void)ctx;
    (void)prev;
    ((struct state *)user_data.ptr)->ctx_state = next;
}

#define TRY(call)                                                                                            \
    do {                                                                                                     \
        doca_error_t err_ = (call);                                                                          \
        if (err_ != DOCA_SUCCESS) {                                                                          \
            fprintf(stderr, "%s: %s\n", #call, doca_error_get_descr(err_));                                  \
            exit(EXIT_FAILURE);                                                                              \
        }                                                                                                    \
    } while (0)

/* The first device that can run DMA memcpy tasks of COPY_SIZE bytes. */
static struct doca_dev *open_dma_device(void) {
    struct doca_devinfo **list;
    uint32_t n = 0;
    struct doca_dev *dev = NULL;
    TRY(doca_devinfo_create_list(&list, &n));
    for (uint32_t i = 0; i < n && dev == NULL; i++) {
        uint64_t max = 0;
        if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS &&
            doca_dma_cap_task_memcpy_get_max_buf_size(list[i], &max) == DOCA_SUCCESS && max >= COPY_SIZE &&
            doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
            dev = NULL;
    }
    doca_devinfo_destroy_list(list);
    if (dev == NULL) {
        fprintf(stderr, "no device supports DMA memcpy of %d bytes\n", COPY_SIZE);
        exit(EXIT_FAILURE);
    }
    return dev;
}

int main(void) {
    struct state st = {0, 0, DOCA_CTX_STATE_IDLE};
    union doca_data ctx_data = {.ptr = &st};
    size_t half = (size_t)COPIES * COPY_SIZE;
    unsigned char *memory = malloc(2 * half);
    struct doca_dev *dev = open_dma_device();
    struct doca_mmap *mmap;
    struct doca_buf_inventory *inventory;
    struct doca_pe *pe;
    struct doca_dma *dma;
    struct doca_buf *src[COPIES], *dst[COPIES];

    if (memory == NULL) return EXIT_FAILURE;
    for (size_t i = 0; i < half; i++) memory[i] = (unsigned char)(i * 7 + i / 4096);
    memset(memory + half, 0, half);

    TRY(doca_mmap_create(&mmap));
    TRY(doca_mmap_set_memrange(mmap, memory, 2 * half));
    TRY(doca_mmap_add_dev(mmap, dev));
    TRY(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
    TRY(doca_mmap_start(mmap));
    TRY(doca_buf_inventory_create(2 * COPIES, &inventory));
    TRY(doca_buf_inventory_start(inventory));

    TRY(doca_pe_create(&pe));
    TRY(doca_dma_create(dev, &dma));
    TRY(doca_ctx_set_user_data(doca_dma_as_ctx(dma), ctx_data));
    TRY(doca_ctx_set_state_changed_cb(doca_dma_as_ctx(dma), state_changed));
    TRY(doca_dma_task_memcpy_set_conf(dma, copied, copy_failed, COPIES));
    TRY(doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)));
    TRY(doca_ctx_start(doca_dma_as_ctx(dma)));
    while (st.ctx_state != DOCA_CTX_STATE_RUNNING) doca_pe_progress(pe);

    for (uint32_t i = 0; i < COPIES; i++) {
        struct doca_dma_task_memcpy *task;
        union doca_data task_data = {.u64 = i};
        TRY(doca_buf_inventory_buf_get_by_data(inventory, mmap, memory + (size_t)i * COPY_SIZE, COPY_SIZE,
                                               &src[i]));
        TRY(doca_buf_inventory_buf_get_by_addr(inventory, mmap, memory + half + (size_t)i * COPY_SIZE,
                                               COPY_SIZE, &dst[i]));
        TRY(doca_dma_task_memcpy_alloc_init(dma, src[i], dst[i], task_data, &task));
        TRY(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
    }
    while (st.done + st.failed < COPIES) doca_pe_progress(pe);
    if (st.failed != 0 || memcmp(memory, memory + half, half) != 0) {
        fprintf(stderr, "dma_copy: %zu of %d copies failed or the destination differs from the source\n",
                st.failed, COPIES);
        return EXIT_FAILURE;
    }

    doca_error_t stopped = doca_ctx_stop(doca_dma_as_ctx(dma));
    if (stopped != DOCA_SUCCESS && stopped != DOCA_ERROR_IN_PROGRESS) TRY(stopped);
    while (st.ctx_state != DOCA_CTX_STATE_IDLE) doca_pe_progress(pe);
    for (uint32_t i = 0; i < COPIES; i++) {
        TRY(doca_buf_dec_refcount(src[i], NULL));
        TRY(doca_buf_dec_refcount(dst[i], NULL));
    }
    TRY(doca_dma_destroy(dma));
    TRY(doca_pe_destroy(pe));
    TRY(doca_buf_inventory_destroy(inventory));
    TRY(doca_mmap_destroy(mmap));
    TRY(doca_dev_close(dev));
    free(memory);
    printf("dma_copy: %d copies of %d bytes verified\n", COPIES, COPY_SIZE);
    return EXIT_SUCCESS;
}
