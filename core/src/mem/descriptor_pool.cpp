#include "mem/descriptor_pool.hpp"

#include <new>

namespace skiff::core::mem {

DescriptorPool::DescriptorPool(uint32_t count) : slots_(new (std::nothrow) doca_buf[count]) {
    if (slots_ == nullptr) return;
    size_ = count;
    for (uint32_t i = count; i > 0; --i) {
        doca_buf *b = &slots_[i - 1];
        b->home = this;
        give(b);
    }
}

} // namespace skiff::core::mem
