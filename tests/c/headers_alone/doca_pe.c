/* doca_pe.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_pe.h>

int header_doca_pe(void);

int header_doca_pe(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_pe_create, (void *)&doca_ctx_start, (void *)&malloc,
                             (void *)&free};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
