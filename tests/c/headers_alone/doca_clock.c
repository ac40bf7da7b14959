/* doca_clock.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_clock.h>

int header_doca_clock(void);

int header_doca_clock(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_clock_create, (void *)&doca_clock_get_crosstimestamp,
                             (void *)&malloc, (void *)&nanosleep};
    union doca_clock_timespec_t t = {.counter = DOCA_CLOCK_HOST_COUNTER_CYCLES};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return t.counter != 0;
}
