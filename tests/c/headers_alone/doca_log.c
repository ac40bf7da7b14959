/* doca_log.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_log.h>

DOCA_LOG_REGISTER(HEADERS_ALONE::DOCA_LOG);

int header_doca_log(void);

int header_doca_log(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_log_backend_create_standard, (void *)&printf};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
