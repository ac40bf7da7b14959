// The null backend: reads return zeroes, writes are discarded. For measuring the transport.
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"

#include <atomic>

namespace skiff::dataplane {

class NullDevice final : public nvmeof::target::SyncBlockDevice {
  public:
    explicit NullDevice(uint64_t size_bytes) : size_(size_bytes) {}

    const char *kind() const override { return "null"; }
    uint64_t size_bytes() const override { return size_.load(std::memory_order_acquire); }
    Status grow(uint64_t new_size_bytes) override {
        size_.store(new_size_bytes, std::memory_order_release);
        return Status::success();
    }
    nvmeof::target::DeallocateMode deallocate_mode() const override {
        return nvmeof::target::DeallocateMode::kReadsZeroes;
    }
    uint16_t read(uint64_t offset, void *dst, size_t len) override;
    uint16_t write(uint64_t, const void *, size_t) override { return 0; }
    uint16_t compare(uint64_t offset, const void *expected, size_t len, bool &equal) override;
    uint16_t write_zeroes(uint64_t, size_t) override { return 0; }
    uint16_t deallocate(uint64_t, size_t) override { return 0; }
    uint16_t flush() override { return 0; }

  private:
    std::atomic<uint64_t> size_;
};

} // namespace skiff::dataplane
