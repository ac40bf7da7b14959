// The RAM ("malloc") backend: one anonymous mapping, so a 1 GiB namespace costs nothing until
// its pages are written; deallocated ranges give their pages back and read as zeroes. The
// mapping reserves address space for kGrowthFactor times the size (inaccessible until grown),
// so the namespace grows in place while hosts are connected: no byte moves, no pointer a
// poll group holds goes stale.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <atomic>
#include <memory>

namespace skiff::dataplane {

class RamDevice final : public nvmeof::target::SyncBlockDevice {
  public:
    static constexpr uint64_t kGrowthFactor = 4;
    // size_bytes must be a non-zero multiple of 4096.
    static Result<std::shared_ptr<RamDevice>> create(uint64_t size_bytes);
    ~RamDevice() override;
    RamDevice(const RamDevice &) = delete;
    RamDevice &operator=(const RamDevice &) = delete;

    const char *kind() const override { return "ram"; }
    uint64_t size_bytes() const override { return size_.load(std::memory_order_acquire); }
    // Up to kGrowthFactor times the size it was created with, in multiples of 4096.
    Status grow(uint64_t new_size_bytes) override;
    nvmeof::target::DeallocateMode deallocate_mode() const override {
        return nvmeof::target::DeallocateMode::kReadsZeroes;
    }
    uint16_t read(uint64_t offset, void *dst, size_t len) override;
    // The namespace's bytes in place: a large NVMe/TCP read is sent from here, without a copy
    // into the request's buffer first (HeldView).
    const uint8_t *read_view(uint64_t offset, size_t) override { return base_ + offset; }
    uint16_t write(uint64_t offset, const void *src, size_t len) override;
    uint16_t compare(uint64_t offset, const void *expected, size_t len, bool &equal) override;
    uint16_t write_zeroes(uint64_t offset, size_t len) override;
    uint16_t deallocate(uint64_t offset, size_t len) override;
    uint16_t flush() override { return 0; }

  private:
    RamDevice(uint8_t *base, uint64_t size, uint64_t reserved)
        : base_(base), size_(size), reserved_(reserved) {}
    uint8_t *base_;
    std::atomic<uint64_t> size_;
    uint64_t reserved_; // bytes of address space mapped (the accessible part is size_)
};

} // namespace skiff::dataplane
