// The object behind doca_buf: a descriptor of [head, head + len) in one mmap with a data region
// inside, a link in a (possibly one-element) list, and the refcount of its list when it is the head.
#pragma once

#include <doca_error.h>

#include <cstddef>
#include <cstdint>

struct doca_mmap;

namespace skiff::core::mem {
class DescriptorPool;
}

struct doca_buf {
    doca_mmap *mmap = nullptr;
    uint8_t *head = nullptr;
    size_t len = 0;
    uint8_t *data = nullptr;
    size_t data_len = 0;
    doca_buf *next = nullptr; // next element of the list (free-list link while unused)
    doca_buf *prev = nullptr; // previous element; nullptr for a list head
    uint16_t refcount = 0;    // meaningful on the head; members always hold 1
    skiff::core::mem::DescriptorPool *home = nullptr; // where the descriptor returns
};

namespace skiff::core::mem {

// Points a fresh descriptor at [addr, addr + len) with data [data, data + data_len), refcount 1,
// and counts it in the mmap.
void buf_attach(doca_buf *b, doca_mmap *mmap, uint8_t *addr, size_t len, uint8_t *data, size_t data_len);

// Returns every element of the list headed by `head` to its pool and uncounts it from its mmap.
void buf_release_list(doca_buf *head);

} // namespace skiff::core::mem
