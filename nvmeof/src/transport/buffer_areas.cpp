#include "skiff/nvmeof/transport/buffer_areas.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace skiff::nvmeof::transport::buffer_areas {
namespace {

std::mutex mu;
std::vector<BufferArea> &areas() {
    static std::vector<BufferArea> list;
    return list;
}
std::atomic<uint64_t> removals{0};

} // namespace

void add(uint8_t *base, size_t len) {
    std::lock_guard lock(mu);
    areas().push_back({base, len});
}

void remove(uint8_t *base) {
    std::lock_guard lock(mu);
    std::erase_if(areas(), [&](const BufferArea &a) { return a.base == base; });
    removals.fetch_add(1, std::memory_order_release);
}

uint64_t generation() {
    return removals.load(std::memory_order_acquire);
}

bool find(const void *p, size_t len, BufferArea &out) {
    auto *b = static_cast<const uint8_t *>(p);
    std::lock_guard lock(mu);
    for (const BufferArea &a : areas())
        if (b >= a.base && len <= a.len && b - a.base <= static_cast<ptrdiff_t>(a.len - len)) {
            out = a;
            return true;
        }
    return false;
}

} // namespace skiff::nvmeof::transport::buffer_areas
