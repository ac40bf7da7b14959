// The error backend (the shape of SPDK's error bdev): wraps another backend and fails the next
// N reads, writes or flushes with an NVMe status chosen by the operator, and/or holds them for
// a chosen latency first, so hosts' error and timeout paths can be exercised with real
// components. Everything else passes through to the base device's
// own channel untouched.
//
// The injection state is a few atomics per operation kind: skiff-ctl (`error-inject`, through
// the management thread) arms them while the poll groups run; a poll group claims one injected
// failure with a compare-and-swap, so "the next N" is exact across groups, and the data path
// takes no lock and allocates nothing.
#pragma once

#include "skiff/nvmeof/target/block_device.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace skiff::dataplane {

// Which commands an injection applies to: reads (Read, Compare), writes (Write, Write Zeroes,
// Deallocate), flushes.
enum class InjectOp : uint8_t { kRead, kWrite, kFlush };
inline constexpr int kInjectOps = 3;
// The longest latency one may add: 60 s (a host's I/O timeout is 30 s by default).
inline constexpr uint32_t kMaxInjectDelayUs = 60'000'000;

// "read" / "write" / "flush" -> op; false for anything else.
bool parse_inject_op(const char *name, InjectOp &op);
const char *inject_op_name(InjectOp op);

class ErrorDevice final : public nvmeof::target::BlockDevice {
  public:
    explicit ErrorDevice(std::shared_ptr<nvmeof::target::BlockDevice> base);

    const char *kind() const override { return "error"; }
    uint64_t size_bytes() const override { return base_->size_bytes(); }
    Status grow(uint64_t new_size_bytes) override { return base_->grow(new_size_bytes); }
    uint32_t min_block_size() const override { return base_->min_block_size(); }
    nvmeof::target::DeallocateMode deallocate_mode() const override { return base_->deallocate_mode(); }
    bool volatile_write_cache() const override { return base_->volatile_write_cache(); }
    bool atomic_compare_and_write(uint64_t offset, uint64_t len) const override {
        return base_->atomic_compare_and_write(offset, len);
    }
    bool accessible() const override { return base_->accessible(); }
    uint64_t ana_changes() const override { return base_->ana_changes(); }
    Result<std::unique_ptr<nvmeof::target::IoChannel>>
    open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &p) override;

    // The next `count` commands of kind `op` wait `delay_us` (0: none; a poll group holds them
    // in order behind a timerfd), then fail with `status` (an NVMe status field, see
    // nvmeof::wire::Status::make; 0: they go on to the base). count 0 disarms. Replaces what
    // was armed for op.
    void inject(InjectOp op, uint32_t count, uint16_t status, uint32_t delay_us = 0);
    // Commands of kind op still to fail, and how many were failed so far.
    uint32_t pending(InjectOp op) const { return state_[int(op)].remaining.load(std::memory_order_relaxed); }
    uint64_t injected(InjectOp op) const { return state_[int(op)].injected.load(std::memory_order_relaxed); }
    uint16_t status(InjectOp op) const { return state_[int(op)].status.load(std::memory_order_relaxed); }
    uint32_t delay_us(InjectOp op) const { return state_[int(op)].delay_us.load(std::memory_order_relaxed); }

    // What happens to one I/O on the data path.
    struct Claim {
        uint16_t status = 0;   // fail with this (0: pass on to the base)
        uint32_t delay_us = 0; // after this long
    };
    Claim claim(const nvmeof::target::BackendIo &io);
    nvmeof::target::BlockDevice &base() { return *base_; }

  private:
    struct State {
        std::atomic<uint32_t> remaining{0};
        std::atomic<uint16_t> status{0};
        std::atomic<uint32_t> delay_us{0};
        std::atomic<uint64_t> injected{0};
    };
    std::shared_ptr<nvmeof::target::BlockDevice> base_;
    State state_[kInjectOps];
};

} // namespace skiff::dataplane
