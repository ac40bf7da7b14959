/* doca_argp.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_argp.h>

int header_doca_argp(void);

int header_doca_argp(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_argp_init, (void *)&doca_argp_start,
                             (void *)&doca_error_get_descr};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
