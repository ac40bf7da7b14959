/* doca_comch.h included alone compiles and declares its API. */
#include <doca_comch.h>

int header_doca_comch(void);

int header_doca_comch(void) {
    /* volatile: the address is read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_comch_server_create};
    return used[0] != 0;
}
