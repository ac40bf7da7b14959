/*
 * C program over the public headers: a buffer pool and a buffer array on one mmap, with the
 * documented errors (EMPTY on exhaustion, BAD_STATE on a second array start), torn down in order.
 */
#include <doca_buf.h>
#include <doca_buf_array.h>
#include <doca_buf_pool.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        doca_error_t r_ = (call);                                                                            \
        if (r_ != DOCA_SUCCESS) {                                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, doca_error_get_name(r_));   \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

#define EXPECT_ERROR(call, expected)                                                                         \
    do {                                                                                                     \
        doca_error_t r_ = (call);                                                                            \
        if (r_ != (expected)) {                                                                              \
            fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call,               \
                    doca_error_get_name(r_), doca_error_get_name(expected));                                 \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

int main(void) {
    enum { MEM_SIZE = 16 * 1024, ELEMS = 4, ELEM_SIZE = 1024 };
    static uint8_t memory[MEM_SIZE];
    struct doca_mmap *mmap = NULL;
    struct doca_buf_pool *pool = NULL;
    struct doca_buf_arr *arr = NULL;
    struct doca_buf *bufs[ELEMS];
    struct doca_buf *extra = NULL;
    doca_dpa_dev_buf_arr_t handle = 0;
    int dpa_stand_in = 0; /* the array only records its target here */
    uint32_t n = 0;
    void *head = NULL;

    CHECK(doca_mmap_create(&mmap));
    CHECK(doca_mmap_set_memrange(mmap, memory, MEM_SIZE));
    CHECK(doca_mmap_start(mmap));

    CHECK(doca_buf_pool_create(ELEMS, ELEM_SIZE, mmap, &pool));
    CHECK(doca_buf_pool_set_element_alignment(pool, 64));
    CHECK(doca_buf_pool_start(pool));
    for (int i = 0; i < ELEMS; i++) {
        CHECK(doca_buf_pool_buf_alloc(pool, &bufs[i]));
        CHECK(doca_buf_get_head(bufs[i], &head));
        if ((uintptr_t)head % 64 != 0) {
            fprintf(stderr, "element %d at %p is not 64-byte aligned\n", i, head);
            return 1;
        }
    }
    EXPECT_ERROR(doca_buf_pool_buf_alloc(pool, &extra), DOCA_ERROR_EMPTY);
    EXPECT_ERROR(doca_buf_pool_destroy(pool), DOCA_ERROR_IN_USE);
    for (int i = 0; i < ELEMS; i++) CHECK(doca_buf_dec_refcount(bufs[i], NULL));
    CHECK(doca_buf_pool_get_num_free_elements(pool, &n));
    if (n != ELEMS) {
        fprintf(stderr, "%u free elements, expected %d\n", n, ELEMS);
        return 1;
    }

    CHECK(doca_buf_arr_create(ELEMS, &arr));
    CHECK(doca_buf_arr_set_params(arr, mmap, ELEM_SIZE, 8 * 1024));
    CHECK(doca_buf_arr_set_target_dpa(arr, (struct doca_dpa *)&dpa_stand_in));
    CHECK(doca_buf_arr_start(arr));
    EXPECT_ERROR(doca_buf_arr_start(arr), DOCA_ERROR_BAD_STATE);
    CHECK(doca_buf_arr_get_dpa_handle(arr, &handle));
    if (handle == 0) {
        fprintf(stderr, "null DPA handle\n");
        return 1;
    }

    CHECK(doca_buf_arr_stop(arr));
    CHECK(doca_buf_arr_destroy(arr));
    CHECK(doca_buf_pool_stop(pool));
    CHECK(doca_buf_pool_destroy(pool));
    CHECK(doca_mmap_stop(mmap));
    CHECK(doca_mmap_destroy(mmap));
    printf("mem_pool_sample: ok\n");
    return 0;
}
