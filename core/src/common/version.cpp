// doca_version_runtime: the DOCA API level of this library and the skiff release providing it.
#include <doca_version.h>

#ifndef SKIFF_VERSION_STRING
#error "SKIFF_VERSION_STRING is set by core/CMakeLists.txt"
#endif

const char *doca_version_runtime(void) {
    return DOCA_VER_STRING " (skiff " SKIFF_VERSION_STRING ")";
}
