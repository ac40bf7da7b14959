// The RAM ("malloc") backend: one anonymous mapping, so a 1 GiB namespace costs nothing until
// its pages are written; deallocated ranges give their pages back and read as zeroes.
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <memory>

namespace skiff::dataplane {

class RamDevice final : public nvmeof::target::SyncBlockDevice {
  public:
    // size_bytes must be a non-zero multiple of 4096.
    static Result<std::shared_ptr<RamDevice>> create(uint64_t size_bytes);
    ~RamDevice() override;
    RamDevice(const RamDevice &) = delete;
    RamDevice &operator=(const RamDevice &) = delete;

    const char *kind() const override { return "ram"; }
    uint64_t size_bytes() const override { return size_; }
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
    RamDevice(uint8_t *base, uint64_t size) : base_(base), size_(size) {}
    uint8_t *base_;
    uint64_t size_;
};

} // namespace skiff::dataplane
