#include "skiff/nvmeof/target/namespace.hpp"

#include "skiff/nvmeof/crc32c.hpp"

#include <atomic>
#include <bit>
#include <cassert>
#include <cstring>
#include <string>

namespace skiff::nvmeof::target {
namespace {
uint64_t next_uid() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}
} // namespace

Namespace::Namespace(uint32_t nsid, uint32_t block_size, std::shared_ptr<BlockDevice> device,
                     NamespaceIds ids)
    : nsid_(nsid), block_size_(block_size), block_shift_(static_cast<uint8_t>(std::countr_zero(block_size))),
      num_blocks_(device->size_bytes() / block_size), uid_(next_uid()), device_(std::move(device)),
      ids_(ids) {
    assert(std::has_single_bit(block_size) && block_size >= 512);
}

Status Namespace::grow_to(uint64_t size_bytes) {
    const uint64_t now = num_blocks() << block_shift_;
    if (size_bytes % block_size_)
        return make_error(DOCA_ERROR_INVALID_VALUE, "namespace " + std::to_string(nsid_) + ": " +
                                                        std::to_string(size_bytes) +
                                                        " bytes is not a whole number of " +
                                                        std::to_string(block_size_) + "-byte blocks");
    if (size_bytes < now)
        return make_error(DOCA_ERROR_NOT_SUPPORTED, "namespace " + std::to_string(nsid_) +
                                                        " cannot shrink (from " + std::to_string(now) +
                                                        " to " + std::to_string(size_bytes) +
                                                        " bytes): hosts may have data past the new end");
    if (size_bytes > device_->size_bytes())
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "namespace " + std::to_string(nsid_) + ": " + std::to_string(size_bytes) +
                              " bytes is more than its " + device_->kind() + " backend holds");
    if (size_bytes == now) return Status::success();
    num_blocks_.store(size_bytes >> block_shift_, std::memory_order_release);
    attr_generation_.fetch_add(1, std::memory_order_acq_rel);
    return Status::success();
}

int64_t Namespace::pinned() const {
    int64_t sum = 0;
    for (const PinLane &l : pins_) sum += l.n.load(std::memory_order_acquire);
    return sum;
}

NamespaceIds derive_namespace_ids(std::string_view nqn, uint32_t nsid) {
    // Four CRC32C lanes over "nqn/nsid/lane" give 16 stable bytes; good enough for ids that
    // only need to be unique per target and stable across restarts.
    auto lane = [&](uint32_t i) {
        std::string s = std::string(nqn) + "/" + std::to_string(nsid) + "/" + std::to_string(i);
        return crc32c(s.data(), s.size());
    };
    NamespaceIds ids;
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t v = lane(i);
        std::memcpy(ids.nguid.data() + 4 * i, &v, 4);
    }
    ids.uuid = ids.nguid;
    ids.uuid[6] = static_cast<uint8_t>((ids.uuid[6] & 0x0F) | 0x80); // version 8 (custom)
    ids.uuid[8] = static_cast<uint8_t>((ids.uuid[8] & 0x3F) | 0x80); // RFC 4122 variant
    return ids;
}

} // namespace skiff::nvmeof::target
