/* doca_graph.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_graph.h>

int header_doca_graph(void);

int header_doca_graph(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_graph_create, (void *)&doca_graph_instance_submit};
    union doca_data data = {.u64 = 1};
    size_t size = sizeof data;
    uint32_t n = (uint32_t)size;
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return n == sizeof data;
}
