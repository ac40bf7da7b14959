#include "skiff/dataplane/error_device.hpp"

#include <cstring>

namespace skiff::dataplane {
namespace {

using nvmeof::target::BackendIo;
using nvmeof::target::IoOp;

constexpr const char *kOpNames[kInjectOps] = {"read", "write", "flush"};

InjectOp op_of(IoOp op) {
    switch (op) {
    case IoOp::kRead:
    case IoOp::kCompare:
        return InjectOp::kRead;
    case IoOp::kFlush:
        return InjectOp::kFlush;
    default:
        return InjectOp::kWrite;
    }
}

// The base device's channel with injected failures in front of it. Failed I/O completes
// inline and never reaches the base, so in_flight() is the base's.
class ErrorChannel final : public nvmeof::target::IoChannel {
  public:
    ErrorChannel(ErrorDevice &dev, std::unique_ptr<nvmeof::target::IoChannel> base)
        : dev_(dev), base_(std::move(base)) {}

    void submit(BackendIo &io) override {
        if (uint16_t st = dev_.claim(io)) return io.done(io, st);
        base_->submit(io);
    }
    uint32_t in_flight() const override { return base_->in_flight(); }

  private:
    ErrorDevice &dev_;
    std::unique_ptr<nvmeof::target::IoChannel> base_;
};

} // namespace

bool parse_inject_op(const char *name, InjectOp &op) {
    for (int i = 0; i < kInjectOps; ++i)
        if (std::strcmp(name, kOpNames[i]) == 0) {
            op = InjectOp(i);
            return true;
        }
    return false;
}

const char *inject_op_name(InjectOp op) {
    return kOpNames[int(op)];
}

ErrorDevice::ErrorDevice(std::shared_ptr<nvmeof::target::BlockDevice> base) : base_(std::move(base)) {}

Result<std::unique_ptr<nvmeof::target::IoChannel>>
ErrorDevice::open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &p) {
    auto base = base_->open_channel(ctx, p);
    if (!base) return base.error();
    return std::unique_ptr<nvmeof::target::IoChannel>(
        std::make_unique<ErrorChannel>(*this, std::move(*base)));
}

void ErrorDevice::inject(InjectOp op, uint32_t count, uint16_t status) {
    State &s = state_[int(op)];
    // Disarm first so no group claims a failure with the old status and the new count.
    s.remaining.store(0, std::memory_order_release);
    s.status.store(status, std::memory_order_release);
    s.remaining.store(status ? count : 0, std::memory_order_release);
}

uint16_t ErrorDevice::claim(const BackendIo &io) {
    State &s = state_[int(op_of(io.op))];
    uint32_t left = s.remaining.load(std::memory_order_acquire);
    while (left != 0) {
        if (s.remaining.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) {
            s.injected.fetch_add(1, std::memory_order_relaxed);
            return s.status.load(std::memory_order_acquire);
        }
    }
    return 0;
}

} // namespace skiff::dataplane
