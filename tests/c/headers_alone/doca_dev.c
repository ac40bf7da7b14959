/* doca_dev.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_dev.h>

int header_doca_dev(void);

int header_doca_dev(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_devinfo_create_list};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
