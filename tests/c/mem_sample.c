/*
 * A DOCA-style C program against the public headers only: open a device by capability, register
 * memory in an mmap, take bufs from an inventory, chain and release them, and tear everything down
 * in order. Every return code is checked; any failure exits non-zero.
 */
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        doca_error_t r_ = (call);                                                                            \
        if (r_ != DOCA_SUCCESS) {                                                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, doca_error_get_name(r_));   \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

#define EXPECT(cond)                                                                                         \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                              \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

/* A device that can take part in PCI sharing: a DPU PF (import) or a host function (export). */
static struct doca_dev *open_device_with_pci_cap(void) {
    struct doca_devinfo **list = NULL;
    struct doca_dev *dev = NULL;
    uint32_t n = 0;

    CHECK(doca_devinfo_create_list(&list, &n));
    for (uint32_t i = 0; i < n && dev == NULL; i++) {
        uint8_t can_import = 0, can_export = 0;
        CHECK(doca_mmap_cap_is_create_from_export_pci_supported(list[i], &can_import));
        CHECK(doca_mmap_cap_is_export_pci_supported(list[i], &can_export));
        if (can_import || can_export) CHECK(doca_dev_open(list[i], &dev));
    }
    CHECK(doca_devinfo_destroy_list(list));
    EXPECT(dev != NULL);
    return dev;
}

int main(void) {
    enum { MEM_SIZE = 64 * 1024, NUM_BUFS = 8 };
    char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
    struct doca_dev *dev = open_device_with_pci_cap();
    struct doca_mmap *mmap = NULL;
    struct doca_buf_inventory *inv = NULL;
    struct doca_buf *src = NULL, *dst = NULL;
    uint8_t *memory = malloc(MEM_SIZE);
    uint32_t count = 0;
    size_t data_len = 0;
    void *data = NULL;

    EXPECT(memory != NULL);
    memset(memory, 0x5a, MEM_SIZE);
    CHECK(doca_devinfo_get_pci_addr_str(doca_dev_as_devinfo(dev), pci));
    printf("device %s\n", pci);

    CHECK(doca_mmap_create(&mmap));
    CHECK(doca_mmap_set_memrange(mmap, memory, MEM_SIZE));
    CHECK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
    CHECK(doca_mmap_add_dev(mmap, dev));
    CHECK(doca_mmap_start(mmap));

    CHECK(doca_buf_inventory_create(NUM_BUFS, &inv));
    CHECK(doca_buf_inventory_start(inv));
    CHECK(doca_buf_inventory_buf_get_by_data(inv, mmap, memory, 4096, &src));
    CHECK(doca_buf_inventory_buf_get_by_addr(inv, mmap, memory + 4096, 4096, &dst));
    CHECK(doca_buf_get_data_len(src, &data_len));
    EXPECT(data_len == 4096);
    CHECK(doca_buf_get_data(dst, &data));
    EXPECT(data == memory + 4096);
    CHECK(doca_buf_get_data_len(dst, &data_len));
    EXPECT(data_len == 0);

    CHECK(doca_buf_chain_list(src, dst));
    CHECK(doca_buf_get_list_len(src, &count));
    EXPECT(count == 2);
    CHECK(doca_mmap_get_num_bufs(mmap, &count));
    EXPECT(count == 2);
    EXPECT(doca_mmap_stop(mmap) == DOCA_ERROR_NOT_PERMITTED); /* bufs still point into it */

    /* Teardown in order: bufs, inventory, mmap, device. */
    CHECK(doca_buf_dec_refcount(src, NULL)); /* releases the whole list */
    CHECK(doca_buf_inventory_get_num_free_elements(inv, &count));
    EXPECT(count == NUM_BUFS);
    CHECK(doca_buf_inventory_stop(inv));
    CHECK(doca_buf_inventory_destroy(inv));
    CHECK(doca_mmap_stop(mmap));
    CHECK(doca_mmap_destroy(mmap));
    CHECK(doca_dev_close(dev));
    free(memory);
    printf("mem_sample: ok\n");
    return 0;
}
