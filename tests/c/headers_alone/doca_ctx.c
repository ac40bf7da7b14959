/* doca_ctx.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_ctx.h>

int header_doca_ctx(void);

int header_doca_ctx(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_ctx_start, (void *)&doca_dev_open};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
