/* doca_dpa.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_dpa.h>

/* Device-code annotations must mean nothing to the host compiler. */
__dpa_global__ void header_doca_dpa_kernel(void);
__dpa_rpc__ unsigned long header_doca_dpa_rpc(void);

int header_doca_dpa(void);

int header_doca_dpa(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_dpa_create, (void *)&doca_dpa_cap_is_supported};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return (sizeof(bool)) != 0;
}
