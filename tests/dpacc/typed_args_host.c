/*
 * A DPA program whose device functions take structs by value and promoted scalar types, called
 * the way DOCA's samples call them (NVIDIA's dpa_ping_pong passes two structs to its RPC): the
 * device code is built by skiff-dpacc (tests/CMakeLists.txt), the host passes the arguments
 * through doca_dpa_rpc and doca_dpa_kernel_launch_update_set, and the device must see every
 * field. Exits non-zero on any difference.
 */
#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_sync_event.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "typed_args.h"

DOCA_LOG_REGISTER(DPACC::TYPED_ARGS);

#include "../c/dpa_device.h"

#define RANKS 4

extern struct doca_dpa_app *typed_args_app; /* made by skiff-dpacc --app-name typed_args_app */
extern doca_dpa_func_t mix_rpc;
extern doca_dpa_func_t record_kernel;

static int check_rpc(struct doca_dpa *dpa) {
    doca_dpa_dev_t handle;
    struct endpoint a = {.addr = 0x1122334455667788ULL, .key = 0xdeadbeef, .port = 4420, .flags = 0x5a};
    struct point p = {.x = 1.25, .y = -3.5};
    struct blob b = {.words = {1, 2, 3, 0xffffffffffffULL, 5, 6}, .name = "skiff!!"};
    uint8_t small = 200;
    bool flag = true;
    float ratio = 2.75f;
    uint16_t last = 65000;
    uint64_t got = 0;

    CHECK(doca_dpa_get_dpa_handle(dpa, &handle));
    CHECK(doca_dpa_rpc(dpa, &mix_rpc, &got, handle, a, p, small, flag, ratio, b, last));
    uint64_t want = typed_args_checksum(handle, a, p, small, flag, ratio, b, last);
    if (got != want) {
        DOCA_LOG_ERR("mix_rpc returned %#lx, expected %#lx", (unsigned long)got, (unsigned long)want);
        return 1;
    }
    printf("rpc: struct, struct of doubles, uint8_t, bool, float, 56-byte struct, uint16_t: all arrived\n");
    return 0;
}

static int check_kernel(struct doca_dpa *dpa, struct doca_dev *dev) {
    struct endpoint e = {.addr = 0xabcdef0123ULL, .key = 77, .port = 9, .flags = 1};
    struct record records[RANKS];
    doca_dpa_dev_uintptr_t out;
    struct doca_sync_event *done;

    CHECK(doca_dpa_mem_alloc(dpa, sizeof(records), &out));
    CHECK(doca_sync_event_create(&done));
    CHECK(doca_sync_event_add_publisher_location_dpa(done, dpa));
    CHECK(doca_sync_event_add_subscriber_location_cpu(done, dev));
    CHECK(doca_sync_event_start(done));
    CHECK(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, done, 1, RANKS, &record_kernel, (uint64_t)out, e,
                                            (uint16_t)513, 0.5));
    CHECK(doca_sync_event_wait_gt(done, 0, 0));
    CHECK(doca_dpa_d2h_memcpy(dpa, records, out, sizeof(records)));
    for (unsigned int i = 0; i < RANKS; ++i) {
        const struct record *r = &records[i];
        if (r->addr != e.addr || r->key != e.key || r->port != e.port || r->tag != 513 ||
            r->scaled != 0.5 * (i + 1) || r->rank != i) {
            DOCA_LOG_ERR("rank %u recorded addr %#lx key %u port %u tag %u scaled %f", i,
                         (unsigned long)r->addr, r->key, r->port, r->tag, r->scaled);
            return 1;
        }
    }
    CHECK(doca_sync_event_stop(done));
    CHECK(doca_sync_event_destroy(done));
    CHECK(doca_dpa_mem_free(dpa, out));
    printf("kernel: %d ranks saw the struct, the uint16_t and the double\n", RANKS);
    return 0;
}

int main(void) {
    struct doca_dev *dev = open_dpa_device();
    struct doca_dpa *dpa;
    int rc;

    CHECK(doca_dpa_create(dev, &dpa));
    CHECK(doca_dpa_set_app(dpa, typed_args_app));
    CHECK(doca_dpa_start(dpa));
    rc = check_rpc(dpa) || check_kernel(dpa, dev);
    CHECK(doca_dpa_destroy(dpa));
    CHECK(doca_dev_close(dev));
    return rc;
}
