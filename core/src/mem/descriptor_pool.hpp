// A fixed set of doca_buf descriptors with an intrusive free list (threaded through doca_buf::next).
// Allocated once (inventory create / pool create); taking and giving back never allocate.
#pragma once

#include "mem/buf.hpp"

#include <cstdint>
#include <memory>

namespace skiff::core::mem {

class DescriptorPool {
  public:
    // Allocates `count` descriptors; nullptr-equivalent (size() == 0) when out of memory.
    explicit DescriptorPool(uint32_t count);
    DescriptorPool(const DescriptorPool &) = delete; // descriptors point back at their pool
    DescriptorPool &operator=(const DescriptorPool &) = delete;

    uint32_t size() const { return size_; }
    uint32_t num_free() const { return num_free_; }
    uint32_t num_taken() const { return size_ - num_free_; }
    bool allocated() const { return slots_ != nullptr; }

    // A free descriptor (fields reset, home set), or nullptr when none is left.
    doca_buf *take() {
        doca_buf *b = free_head_;
        if (b == nullptr) return nullptr;
        free_head_ = b->next;
        --num_free_;
        b->next = nullptr;
        return b;
    }
    void give(doca_buf *b) {
        b->prev = nullptr;
        b->next = free_head_;
        b->mmap = nullptr;
        free_head_ = b;
        ++num_free_;
    }
    // Slot index of a descriptor of this pool (for pools that bind memory per slot).
    uint32_t index_of(const doca_buf *b) const { return static_cast<uint32_t>(b - slots_.get()); }

  private:
    std::unique_ptr<doca_buf[]> slots_;
    doca_buf *free_head_ = nullptr;
    uint32_t size_ = 0;
    uint32_t num_free_ = 0;
};

} // namespace skiff::core::mem
