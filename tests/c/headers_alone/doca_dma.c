/* doca_dma.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_dma.h>

int header_doca_dma(void);

int header_doca_dma(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_dma_create, (void *)&doca_buf_get_data, (void *)&doca_ctx_start,
                             (void *)&doca_pe_progress, (void *)&malloc};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return (sizeof(bool)) != 0;
}
