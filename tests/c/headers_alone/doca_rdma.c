/* doca_rdma.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_rdma.h>

int header_doca_rdma(void);

int header_doca_rdma(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_rdma_export, (void *)&doca_rdma_connect,
                             (void *)&doca_buf_get_data, (void *)&doca_pe_progress};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
