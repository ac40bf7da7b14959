/* libflexio/flexio.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <libflexio/flexio.h>

int header_libflexio_flexio(void);

int header_libflexio_flexio(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&flexio_resources_create};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
