// Counts heap allocations made by the per-I/O memory operations (spec 5.1 rule 2), every one of
// this process (counting_allocator.hpp). Prints "data_path <allocations>" and
// exits 0 when the data path allocated nothing, 1 otherwise. Under AddressSanitizer it counts
// through the sanitizer's malloc hooks (counting_allocator.hpp).
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_buf_pool.h>
#include <doca_mmap.h>

#include "../../core/src/mem/mem_access.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "counting_allocator.hpp"

namespace {

bool ok(doca_error_t r, const char *what) {
    if (r == DOCA_SUCCESS) return true;
    std::printf("error %s %s\n", what, doca_error_get_name(r));
    return false;
}

} // namespace

int main() {
    static uint8_t memory[1 << 20];
    doca_mmap *mmap = nullptr;
    doca_buf_inventory *inv = nullptr;
    doca_buf_pool *pool = nullptr;
    // Setup: allocation is allowed here.
    if (!ok(doca_mmap_create(&mmap), "mmap_create") ||
        !ok(doca_mmap_set_memrange(mmap, memory, sizeof(memory)), "memrange") ||
        !ok(doca_mmap_start(mmap), "mmap_start") || !ok(doca_buf_inventory_create(64, &inv), "inv_create") ||
        !ok(doca_buf_inventory_start(inv), "inv_start") ||
        !ok(doca_buf_pool_create(64, 4096, mmap, &pool), "pool_create") ||
        !ok(doca_buf_pool_start(pool), "pool_start"))
        return 2;
    std::vector<doca_buf *> all;
    all.reserve(65);
    long before = allocations.load();

    // The data path: get, describe, chain, dup, release, many times over; and exhaustion.
    for (int round = 0; round < 1000; ++round) {
        doca_buf *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
        if (!ok(doca_buf_inventory_buf_get_by_data(inv, mmap, memory + 4096, 512, &a), "get_by_data") ||
            !ok(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory + 8192, 512, &b), "get_by_addr") ||
            !ok(doca_buf_pool_buf_alloc(pool, &c), "pool_alloc"))
            return 2;
        uint8_t bytes[64];
        if (!ok(skiff::core::mmap_read(skiff::core::buf_mmap(a), memory + 4096, bytes, sizeof(bytes)),
                "read") ||
            !ok(skiff::core::mmap_write(mmap, memory + 8192, bytes, sizeof(bytes)), "write"))
            return 2;
        doca_buf_set_data(b, memory + 8192, 100);
        doca_buf_reset_data_len(b);
        doca_buf_chain_list(a, b);
        doca_buf_inc_refcount(a, nullptr);
        if (!ok(doca_buf_inventory_buf_dup(inv, a, &d), "dup")) return 2;
        doca_buf_unchain_list(a, b);
        doca_buf_dec_refcount(b, nullptr);
        doca_buf_dec_refcount(a, nullptr);
        doca_buf_dec_refcount(a, nullptr);
        doca_buf_dec_refcount(d, nullptr);
        doca_buf_dec_refcount(c, nullptr);
    }
    for (;;) {
        doca_buf *x = nullptr;
        doca_error_t r = doca_buf_pool_buf_alloc(pool, &x);
        if (r == DOCA_ERROR_EMPTY) break;
        if (!ok(r, "pool_alloc")) return 2;
        all.push_back(x);
    }
    for (doca_buf *x : all) doca_buf_dec_refcount(x, nullptr);
    long data_path = allocations.load() - before;

    std::printf("data_path %ld\n", data_path);
    doca_buf_pool_destroy(pool);
    doca_buf_inventory_destroy(inv);
    doca_mmap_destroy(mmap);
    return data_path == 0 ? 0 : 1;
}
