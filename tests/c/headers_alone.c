/*
 * Every public header compiles when included alone, and brings the declarations and standard
 * headers that DOCA's own header brings (DOCA programs rely on them): one translation unit per
 * header in headers_alone/, each taking the address of what must be visible. The build is the
 * main check; at run time each unit confirms it was linked in.
 */
#include <stdio.h>
#include <stdlib.h>

int header_doca_argp(void);
int header_doca_buf(void);
int header_doca_buf_array(void);
int header_doca_buf_inventory(void);
int header_doca_buf_pool(void);
int header_doca_clock(void);
int header_doca_comch(void);
int header_doca_comch_consumer(void);
int header_doca_comch_producer(void);
int header_doca_compat(void);
int header_doca_ctx(void);
int header_doca_dev(void);
int header_doca_dma(void);
int header_doca_dpa(void);
int header_doca_dpa_dev(void);
int header_doca_dpa_dev_buf(void);
int header_doca_dpa_dev_rdma(void);
int header_doca_dpa_dev_sync_event(void);
int header_doca_error(void);
int header_doca_graph(void);
int header_doca_log(void);
int header_doca_mmap(void);
int header_doca_mmap_advise(void);
int header_doca_pe(void);
int header_doca_rdma(void);
int header_doca_sync_event(void);
int header_doca_types(void);
int header_doca_version(void);
int header_libflexio_flexio(void);
int header_libflexio_flexio_ver(void);

static const struct {
    const char *header;
    int (*check)(void);
} units[] = {
    {"doca_argp", header_doca_argp},
    {"doca_buf", header_doca_buf},
    {"doca_buf_array", header_doca_buf_array},
    {"doca_buf_inventory", header_doca_buf_inventory},
    {"doca_buf_pool", header_doca_buf_pool},
    {"doca_clock", header_doca_clock},
    {"doca_comch", header_doca_comch},
    {"doca_comch_consumer", header_doca_comch_consumer},
    {"doca_comch_producer", header_doca_comch_producer},
    {"doca_compat", header_doca_compat},
    {"doca_ctx", header_doca_ctx},
    {"doca_dev", header_doca_dev},
    {"doca_dma", header_doca_dma},
    {"doca_dpa", header_doca_dpa},
    {"doca_dpa_dev", header_doca_dpa_dev},
    {"doca_dpa_dev_buf", header_doca_dpa_dev_buf},
    {"doca_dpa_dev_rdma", header_doca_dpa_dev_rdma},
    {"doca_dpa_dev_sync_event", header_doca_dpa_dev_sync_event},
    {"doca_error", header_doca_error},
    {"doca_graph", header_doca_graph},
    {"doca_log", header_doca_log},
    {"doca_mmap", header_doca_mmap},
    {"doca_mmap_advise", header_doca_mmap_advise},
    {"doca_pe", header_doca_pe},
    {"doca_rdma", header_doca_rdma},
    {"doca_sync_event", header_doca_sync_event},
    {"doca_types", header_doca_types},
    {"doca_version", header_doca_version},
    {"libflexio_flexio", header_libflexio_flexio},
    {"libflexio_flexio_ver", header_libflexio_flexio_ver},
};

int main(void) {
    int failures = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (!units[i].check()) {
            fprintf(stderr, "FAIL: %s\n", units[i].header);
            failures++;
        }
    }
    printf("headers_alone: %zu headers, %d failed\n", sizeof units / sizeof units[0], failures);
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
