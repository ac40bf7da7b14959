/* doca_compat.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_compat.h>

int header_doca_compat(void);

int header_doca_compat(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&strlen, (void *)&memcpy};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
