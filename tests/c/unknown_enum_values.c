/*
 * Enum arguments of the C API holding values no enumerator names, as only a C caller can pass
 * them (in C an enum holds any value of its integer type; in C++ such a value is undefined, so
 * these checks cannot live in the GoogleTest suites): doca_error_get_name/descr answer
 * "unrecognized error code" for 32 and -1, and skiff_dma_set_engine refuses kind 7 with
 * DOCA_ERROR_INVALID_VALUE and keeps the engine it had. Exits non-zero on any failure.
 */
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>

#include <stdio.h>
#include <string.h>

static int failures;

#define EXPECT(cond)                                                                                         \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                  \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

static void unknown_error_codes(void) {
    doca_error_t past_the_last = (doca_error_t)32;
    doca_error_t negative = (doca_error_t)-1;
    EXPECT(strcmp(doca_error_get_name(past_the_last), "unrecognized error code") == 0);
    EXPECT(strcmp(doca_error_get_descr(past_the_last), "unrecognized error code") == 0);
    EXPECT(strcmp(doca_error_get_name(negative), "unrecognized error code") == 0);
    EXPECT(strcmp(doca_error_get_descr(negative), "unrecognized error code") == 0);
}

static struct doca_dev *open_memcpy_device(void) {
    struct doca_devinfo **list = NULL;
    uint32_t n = 0;
    struct doca_dev *dev = NULL;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return NULL;
    for (uint32_t i = 0; i < n && dev == NULL; i++)
        if (doca_dma_cap_task_memcpy_is_supported(list[i]) == DOCA_SUCCESS) doca_dev_open(list[i], &dev);
    doca_devinfo_destroy_list(list);
    return dev;
}

static void unknown_engine_kind(void) {
    struct doca_dev *dev = open_memcpy_device();
    struct doca_dma *dma = NULL;
    EXPECT(dev != NULL);
    if (dev == NULL) return;
    EXPECT(doca_dma_create(dev, &dma) == DOCA_SUCCESS); /* IDLE: the engine may be chosen */
    if (dma != NULL) {
        enum skiff_dma_engine_kind before = SKIFF_DMA_ENGINE_INLINE, after = SKIFF_DMA_ENGINE_INLINE;
        EXPECT(skiff_dma_get_engine(dma, &before) == DOCA_SUCCESS);
        EXPECT(skiff_dma_set_engine(dma, (enum skiff_dma_engine_kind)7) == DOCA_ERROR_INVALID_VALUE);
        EXPECT(skiff_dma_set_engine(dma, (enum skiff_dma_engine_kind)-1) == DOCA_ERROR_INVALID_VALUE);
        EXPECT(skiff_dma_get_engine(dma, &after) == DOCA_SUCCESS);
        EXPECT(after == before);
        EXPECT(skiff_dma_set_engine(dma, SKIFF_DMA_ENGINE_THREAD) == DOCA_SUCCESS); /* a known kind is taken */
        doca_dma_destroy(dma);
    }
    doca_dev_close(dev);
}

int main(void) {
    unknown_error_codes();
    unknown_engine_kind();
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
