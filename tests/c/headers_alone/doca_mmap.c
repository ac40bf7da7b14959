/* doca_mmap.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_mmap.h>

int header_doca_mmap(void);

int header_doca_mmap(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_mmap_create};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return (sizeof(bool)) != 0;
}
