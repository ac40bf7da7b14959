/* doca_comch_producer.h included alone compiles and declares its API. */
#include <doca_comch_producer.h>

int header_doca_comch_producer(void);

int header_doca_comch_producer(void) {
    /* volatile: the address is read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_comch_producer_create};
    return used[0] != 0;
}
