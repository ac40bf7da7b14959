/*
 * What the DPA test programs share (tests/c/dpa_sample.c, tests/dpacc/typed_args_host.c): CHECK,
 * which ends the program with the failed call's name and error, and the DPU device with the DPA.
 * The including file registers its log source (DOCA_LOG_REGISTER) first.
 */
#ifndef SKIFF_TESTS_C_DPA_DEVICE_H
#define SKIFF_TESTS_C_DPA_DEVICE_H

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_log.h>

#include <stdlib.h>

#define CHECK(expr)                                                                                          \
    do {                                                                                                     \
        doca_error_t r_ = (expr);                                                                            \
        if (r_ != DOCA_SUCCESS) {                                                                            \
            DOCA_LOG_ERR("%s failed: %s", #expr, doca_error_get_descr(r_));                                  \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

/* The first device of the DPU side that can run the DPA; the program ends if there is none. */
static inline struct doca_dev *open_dpa_device(void) {
    struct doca_devinfo **list;
    uint32_t n = 0;
    struct doca_dev *dev = NULL;
    setenv("SKIFF_SIDE", "dpu", 0);
    CHECK(doca_devinfo_create_list(&list, &n));
    for (uint32_t i = 0; i < n && dev == NULL; ++i) {
        if (doca_dpa_cap_is_supported(list[i]) == DOCA_SUCCESS) CHECK(doca_dev_open(list[i], &dev));
    }
    doca_devinfo_destroy_list(list);
    if (dev == NULL) {
        DOCA_LOG_ERR("no device with DPA support");
        exit(1);
    }
    return dev;
}

#endif
