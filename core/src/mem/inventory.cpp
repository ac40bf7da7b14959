// doca_buf_inventory: a fixed pool of descriptors that can point at any range of any started mmap.
#include <doca_buf_inventory.h>

#include "mem/descriptor_pool.hpp"
#include "mem/mmap.hpp"

#include <skiff/core/log.hpp>

#include <limits>
#include <new>

struct doca_buf_inventory {
    explicit doca_buf_inventory(uint32_t n) : descriptors(n) {}
    skiff::core::mem::DescriptorPool descriptors;
    bool started = false;
    union doca_data user_data {};
};

namespace {

auto logger() {
    return skiff::log::get("mem");
}

} // namespace

extern "C" {

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **buf_inventory) {
    if (buf_inventory == nullptr || num_elements == 0 ||
        num_elements > std::numeric_limits<uint32_t>::max()) {
        logger()->error("doca_buf_inventory_create: num_elements must be 1..{}, got {}",
                        std::numeric_limits<uint32_t>::max(), num_elements);
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *inv = new (std::nothrow) doca_buf_inventory(static_cast<uint32_t>(num_elements));
    if (inv == nullptr || !inv->descriptors.allocated()) {
        delete inv;
        return DOCA_ERROR_NO_MEMORY;
    }
    *buf_inventory = inv;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory) {
    if (inventory == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (uint32_t n = inventory->descriptors.num_taken(); n != 0) {
        logger()->error("doca_buf_inventory_destroy: {} buf(s) are still outstanding; release them first", n);
        return DOCA_ERROR_IN_USE;
    }
    delete inventory;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory) {
    if (inventory == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (inventory->started) return DOCA_ERROR_BAD_STATE;
    inventory->started = true;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory) {
    if (inventory == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (!inventory->started) return DOCA_ERROR_BAD_STATE;
    if (uint32_t n = inventory->descriptors.num_taken(); n != 0) {
        logger()->error("doca_buf_inventory_stop: {} buf(s) are still outstanding; release them first", n);
        return DOCA_ERROR_IN_USE;
    }
    inventory->started = false;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
                                                 uint32_t *num_of_elements) {
    if (inventory == nullptr || num_of_elements == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *num_of_elements = inventory->descriptors.size();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
                                                      uint32_t *num_of_free_elements) {
    if (inventory == nullptr || num_of_free_elements == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *num_of_free_elements = inventory->descriptors.num_free();
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
                                              union doca_data user_data) {
    if (inventory == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (inventory->started) return DOCA_ERROR_BAD_STATE;
    inventory->user_data = user_data;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
                                              union doca_data *user_data) {
    if (inventory == nullptr || user_data == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *user_data = inventory->user_data;
    return DOCA_SUCCESS;
}

// Data path: no allocation, no lock.
doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap,
                                                void *addr, size_t len, void *data, size_t data_len,
                                                struct doca_buf **buf) {
    if (inventory == nullptr || mmap == nullptr || addr == nullptr || buf == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    if (!inventory->started) {
        logger()->error("doca_buf_inventory_buf_get_*: the inventory is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!mmap->started) {
        logger()->error("doca_buf_inventory_buf_get_*: the mmap is not started");
        return DOCA_ERROR_BAD_STATE;
    }
    if (!skiff::core::mem::mmap_contains(mmap, addr, len)) {
        logger()->error("doca_buf_inventory_buf_get_*: [{}, +{}) is not inside the mmap range [{}, +{})",
                        addr, len, static_cast<void *>(mmap->addr), mmap->len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    auto *head = static_cast<uint8_t *>(addr);
    auto *d = static_cast<uint8_t *>(data);
    if (d < head || data_len > len || static_cast<size_t>(d - head) > len - data_len) {
        logger()->error("doca_buf_inventory_buf_get_by_args: data [{}, +{}) is not inside [{}, +{})", data,
                        data_len, addr, len);
        return DOCA_ERROR_INVALID_VALUE;
    }
    doca_buf *b = inventory->descriptors.take();
    if (b == nullptr) return DOCA_ERROR_NO_MEMORY; // empty: no silent growth
    skiff::core::mem::buf_attach(b, mmap, head, len, d, data_len);
    *buf = b;
    return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory, const struct doca_buf *src_buf,
                                        struct doca_buf **dst_buf) {
    if (inventory == nullptr || src_buf == nullptr || dst_buf == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (src_buf->prev != nullptr) {
        logger()->error("doca_buf_inventory_buf_dup: the source is inside a list; duplicate its head");
        return DOCA_ERROR_NOT_PERMITTED;
    }
    if (!inventory->started) return DOCA_ERROR_BAD_STATE;
    uint32_t count = 0;
    for (const doca_buf *s = src_buf; s != nullptr; s = s->next, ++count)
        if (!s->mmap->started) {
            logger()->error("doca_buf_inventory_buf_dup: the source's mmap is not started");
            return DOCA_ERROR_BAD_STATE;
        }
    if (inventory->descriptors.num_free() < count) return DOCA_ERROR_NO_MEMORY; // all or nothing
    // The descriptors are copied (the whole list); the memory is shared, no data byte moves.
    doca_buf *copy_head = nullptr, *prev = nullptr;
    for (const doca_buf *s = src_buf; s != nullptr; s = s->next) {
        doca_buf *b = inventory->descriptors.take();
        skiff::core::mem::buf_attach(b, s->mmap, s->head, s->len, s->data, s->data_len);
        if (prev == nullptr) {
            copy_head = b;
        } else {
            prev->next = b;
            b->prev = prev;
        }
        prev = b;
    }
    *dst_buf = copy_head;
    return DOCA_SUCCESS;
}

} // extern "C"
