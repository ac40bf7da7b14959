/* libflexio/flexio_ver.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <libflexio/flexio_ver.h>

int header_libflexio_flexio_ver(void);

int header_libflexio_flexio_ver(void) {
    return (FLEXIO_VER(1, 2, 3)) != 0;
}
