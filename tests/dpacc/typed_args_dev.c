/* Device code for tests/dpacc/typed_args_host.c, built by skiff-dpacc as dpacc builds a DOCA
 * program's device code: an RPC and a kernel whose parameters are structs by value and types that
 * a variadic call promotes (uint8_t, _Bool, float, uint16_t). */
#include <doca_dpa_dev.h>
#include <stdbool.h>
#include <stdint.h>

#include "typed_args.h"

__dpa_rpc__ uint64_t mix_rpc(doca_dpa_dev_t handle, struct endpoint a, const struct point p, uint8_t small,
                             bool flag, float ratio, struct blob b, uint16_t last) {
    return typed_args_checksum(handle, a, p, small, flag, ratio, b, last);
}

__dpa_global__ void record_kernel(uint64_t out, struct endpoint e, uint16_t tag, double scale) {
    unsigned int rank = doca_dpa_dev_thread_rank();
    struct record *r = (struct record *)out + rank;

    r->addr = e.addr;
    r->key = e.key;
    r->port = e.port;
    r->tag = tag;
    r->scaled = scale * (rank + 1);
    r->rank = rank;
}
