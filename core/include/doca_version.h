/*
 * skiff core: the DOCA version skiff's API follows. DOCA programs print it (doca_version()) and
 * compare against it (DOCA_VERSION_*); doca_version_runtime() names the library actually loaded.
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The DOCA release whose API skiff implements (major 0-255, minor 0-255, patch 0-9999). */
#define DOCA_VER_MAJOR 2
#define DOCA_VER_MINOR 10
#define DOCA_VER_PATCH 0
#define DOCA_VER_STRING "2.10.0"

/** A version as one number, for comparisons. */
#define DOCA_VERSION_NUM(major, minor, patch) ((size_t)((major) << 24 | (minor) << 16 | (patch)))
#define DOCA_CURRENT_VERSION_NUM DOCA_VERSION_NUM(DOCA_VER_MAJOR, DOCA_VER_MINOR, DOCA_VER_PATCH)
#define DOCA_VERSION_EQ_CURRENT(major, minor, patch)                                                         \
    (DOCA_VERSION_NUM(major, minor, patch) == DOCA_CURRENT_VERSION_NUM)
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch)                                                        \
    (DOCA_VERSION_NUM(major, minor, patch) <= DOCA_CURRENT_VERSION_NUM)

/** The DOCA API version the program was compiled with ("major.minor.patch"). */
static inline const char *doca_version(void) {
    return DOCA_VER_STRING;
}

/**
 * The DOCA API version of the library the program runs with, "major.minor.patch", followed by
 * " (skiff X.Y.Z)": the skiff release that provides it.
 */
DOCA_EXPERIMENTAL const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
