/*
 * skiff core: the part of the FlexIO SDK that DOCA's DPA samples call (libflexio/flexio.h): reading
 * a DPA resources file, which assigns execution units to an application key.
 *
 * skiff's emulated DPA has no resource manager: its EUs are threads (core/src/dpa/README.md) and
 * affinity is set with doca_dpa_eu_affinity_*. A resources file is NVIDIA's format, which skiff
 * does not read: flexio_resources_create logs that and returns FLEXIO_STATUS_FAILED, and programs
 * go on without resource-file affinities (DOCA's samples treat the file as optional).
 */
#ifndef SKIFF_LIBFLEXIO_FLEXIO_H_
#define SKIFF_LIBFLEXIO_FLEXIO_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <libflexio/flexio_ver.h>

#if defined(FLEXIO_VER_USED) && FLEXIO_VER_USED > FLEXIO_CURRENT_VERSION
#error "this program asks for a newer FlexIO API than skiff provides (FLEXIO_VER_USED)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    FLEXIO_STATUS_SUCCESS = 0,
    FLEXIO_STATUS_FAILED = 1,
    FLEXIO_STATUS_TIMEOUT = 2,
    FLEXIO_STATUS_FATAL_ERR = 3,
} flexio_status;

/** The execution units a resources file gives an application key. */
struct flexio_resource;

/** Always FLEXIO_STATUS_FAILED in skiff (see above); *res is set to NULL. */
DOCA_EXPERIMENTAL flexio_status flexio_resources_create(const char *app_key, char *buf, size_t buf_size,
                                                        struct flexio_resource **res);
/** 0 for NULL (no resource object can exist in skiff). */
DOCA_EXPERIMENTAL int flexio_resources_get_eugs_num(struct flexio_resource *res);
DOCA_EXPERIMENTAL uint32_t flexio_resources_get_eus_num(struct flexio_resource *res);
DOCA_EXPERIMENTAL uint32_t *flexio_resources_get_eus(struct flexio_resource *res);
DOCA_EXPERIMENTAL void flexio_resources_destroy(struct flexio_resource *res);

#ifdef __cplusplus
}
#endif

#endif /* SKIFF_LIBFLEXIO_FLEXIO_H_ */
