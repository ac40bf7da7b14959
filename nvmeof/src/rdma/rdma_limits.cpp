#include "skiff/nvmeof/rdma/rdma_limits.hpp"

#include <algorithm>
#include <bit>

namespace skiff::nvmeof::rdma {

uint32_t max_transfer_for_device(uint32_t configured, uint64_t device_max_msg) {
    constexpr uint64_t kPage = 4096;
    uint64_t bytes = std::min<uint64_t>(configured, device_max_msg);
    if (bytes < kPage) return 0;
    return static_cast<uint32_t>(kPage * std::bit_floor(bytes / kPage));
}

} // namespace skiff::nvmeof::rdma
