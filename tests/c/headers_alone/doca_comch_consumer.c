/* doca_comch_consumer.h included alone compiles and declares its API. */
#include <doca_comch_consumer.h>

int header_doca_comch_consumer(void);

int header_doca_comch_consumer(void) {
    /* volatile: the address is read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_comch_consumer_create};
    return used[0] != 0;
}
