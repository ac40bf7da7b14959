/*
 * skiff core: buffer inventories (DOCA 2.x API). A fixed pool of doca_buf descriptors, allocated
 * at create; each one can point at any range of any started mmap. Thread-unsafe.
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_compat.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_mmap;
struct doca_buf_inventory;

/** num_elements > 0 descriptors, allocated now (no allocation afterwards). */
DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements,
                                                   struct doca_buf_inventory **buf_inventory);
/** Stops if needed and frees. IN_USE while any buf is outstanding. */
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
/** Allocation is refused until the next start. IN_USE while any buf is outstanding. */
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
                                                             uint32_t *num_of_elements);
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
                                                                  uint32_t *num_of_free_elements);
DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                                          union doca_data user_data);
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
                                                          union doca_data *user_data);

/**
 * A buf over [addr, addr + len) of mmap with data [data, data + data_len) inside it.
 * BAD_STATE if the inventory or the mmap is not started; INVALID_VALUE if the range is not inside
 * the mmap or the data is not inside the range; NO_MEMORY when the inventory is empty.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
                                                            struct doca_mmap *mmap, void *addr, size_t len,
                                                            void *data, size_t data_len,
                                                            struct doca_buf **buf);

/** An empty buf (data = addr, data_len = 0): a destination. */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
                                                              struct doca_mmap *mmap, void *addr, size_t len,
                                                              struct doca_buf **buf) {
    return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/** A full buf (data = addr, data_len = len): a source. */
static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
                                                              struct doca_mmap *mmap, void *data,
                                                              size_t data_len, struct doca_buf **buf) {
    return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/**
 * Copies the descriptor(s) of src (a whole list when src is a head) into new elements of inventory;
 * the memory is shared, no data byte is copied. The copy has refcount 1.
 * NOT_PERMITTED for a non-head src; BAD_STATE if the inventory or src's mmap is not started;
 * NO_MEMORY when the inventory has fewer free elements than the list has.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
                                                    const struct doca_buf *src_buf,
                                                    struct doca_buf **dst_buf);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
