/* doca_sync_event.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_sync_event.h>

int header_doca_sync_event(void);

int header_doca_sync_event(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_sync_event_create, (void *)&doca_sync_event_wait_eq,
                             (void *)&doca_pe_progress};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return 1;
}
