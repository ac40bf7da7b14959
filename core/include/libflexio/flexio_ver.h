/*
 * skiff core: the FlexIO SDK version macros DOCA DPA programs include (libflexio/flexio_ver.h).
 * skiff provides only the FlexIO calls DOCA's DPA samples use (libflexio/flexio.h).
 */
#ifndef SKIFF_LIBFLEXIO_FLEXIO_VER_H_
#define SKIFF_LIBFLEXIO_FLEXIO_VER_H_

/** A FlexIO version as one comparable number. */
#define FLEXIO_VER(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))

/** The FlexIO API level the calls below follow (25.4.0, the level DOCA 3.0 samples ask for). */
#define FLEXIO_MAJOR_VERSION 25
#define FLEXIO_MINOR_VERSION 4
#define FLEXIO_PATCH_VERSION 0
#define FLEXIO_CURRENT_VERSION FLEXIO_VER(FLEXIO_MAJOR_VERSION, FLEXIO_MINOR_VERSION, FLEXIO_PATCH_VERSION)

#endif /* SKIFF_LIBFLEXIO_FLEXIO_VER_H_ */
