/* doca_buf_array.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_buf_array.h>

int header_doca_buf_array(void);

int header_doca_buf_array(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_buf_arr_create};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
