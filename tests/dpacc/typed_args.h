/* The types that tests/dpacc's host program passes by value to its device functions. Each takes
 * another road through the x86-64 / AArch64 calling conventions: two integer registers, two
 * floating-point registers, and memory (too large for registers). */
#ifndef SKIFF_TESTS_DPACC_TYPED_ARGS_H
#define SKIFF_TESTS_DPACC_TYPED_ARGS_H

#include <stdint.h>

struct endpoint { /* 16 bytes: integer registers */
    uint64_t addr;
    uint32_t key;
    uint16_t port;
    uint8_t flags;
};

struct point { /* two doubles: floating-point registers */
    double x, y;
};

struct blob { /* 56 bytes: on the stack */
    uint64_t words[6];
    char name[8];
};

/* What record_kernel writes per rank, for the host to compare. */
struct record {
    uint64_t addr;
    uint32_t key;
    uint16_t port;
    uint16_t tag;
    double scaled;
    uint32_t rank;
};

/* The checksum mix_rpc returns and the host computes too. */
static inline uint64_t typed_args_checksum(uint64_t handle, struct endpoint a, struct point p, uint8_t small,
                                           _Bool flag, float ratio, struct blob b, uint16_t last) {
    uint64_t s = handle * 3 + a.addr + a.key + a.port + a.flags;
    s = s * 31 + (uint64_t)(int64_t)(p.x * 1000) + (uint64_t)(int64_t)(p.y * 100);
    s = s * 31 + small + (flag ? 7 : 0) + (uint64_t)(ratio * 4);
    for (int i = 0; i < 6; ++i) s = s * 31 + b.words[i];
    for (int i = 0; i < 8; ++i) s = s * 31 + (uint8_t)b.name[i];
    return s * 31 + last;
}

#endif
