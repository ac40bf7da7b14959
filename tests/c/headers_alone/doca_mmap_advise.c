/* doca_mmap_advise.h included alone brings what DOCA's own header brings (programs rely on it). */
#include <doca_mmap_advise.h>

int header_doca_mmap_advise(void);

int header_doca_mmap_advise(void) {
    /* volatile: the addresses are read at run time, never folded away */
    void *volatile used[] = {(void *)&doca_mmap_advise_create,
                             (void *)&doca_mmap_advise_task_invalidate_cache_alloc_init};
    union doca_data d = {.u64 = 1};
    for (unsigned i = 0; i < sizeof used / sizeof used[0]; i++)
        if (used[i] == 0) return 0;
    return d.u64 == 1 && (size_t)1 == 1u;
}
