/* doca_error.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_error.h>

int header_doca_error(void);

int header_doca_error(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_error_get_name};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
