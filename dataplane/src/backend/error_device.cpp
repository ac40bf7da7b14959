#include "skiff/dataplane/error_device.hpp"

#include "skiff/nvmeof/target/poll_context.hpp"

#include <cstring>
#include <ctime>
#include <vector>

#include <sys/timerfd.h>
#include <unistd.h>

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

// The base device's channel with injected failures and latency in front of it. Failed I/O
// completes inline and never reaches the base. Delayed I/O waits, in submission order, in an
// intrusive list (io.next) with its deadline and status in a preallocated ring; one timerfd in
// the group's epoll set fires at the first deadline.
class ErrorChannel final : public nvmeof::target::IoChannel {
  public:
    ErrorChannel(ErrorDevice &dev, nvmeof::target::PollContext &ctx,
                 std::unique_ptr<nvmeof::target::IoChannel> base)
        : dev_(dev), ctx_(ctx), base_(std::move(base)), held_(kMaxHeld) {
        timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        if (timer_fd_ >= 0 && !ctx_.watch_fd(timer_fd_, on_timer, this)) {
            ::close(timer_fd_); // no loop here (inline context): latency cannot be added
            timer_fd_ = -1;
        }
    }
    ~ErrorChannel() override {
        if (timer_fd_ < 0) return;
        ctx_.unwatch_fd(timer_fd_);
        ::close(timer_fd_);
    }

    void submit(BackendIo &io) override {
        ErrorDevice::Claim c = dev_.claim(io);
        if (c.delay_us && hold(io, c)) return;
        if (c.status) return io.done(io, c.status);
        base_->submit(io);
    }
    uint32_t in_flight() const override { return base_->in_flight() + count_; }

  private:
    static constexpr uint32_t kMaxHeld = 1024; // delayed I/O per poll group at once

    struct Held {
        uint64_t deadline_ns;
        uint16_t status;
    };

    static uint64_t now_ns() {
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
    }

    // False when latency cannot be added here (no loop, or kMaxHeld already waiting): the I/O
    // then goes on at once.
    bool hold(BackendIo &io, const ErrorDevice::Claim &c) {
        if (timer_fd_ < 0 || count_ == kMaxHeld) return false;
        held_[(first_ + count_) % kMaxHeld] = {now_ns() + uint64_t(c.delay_us) * 1000u, c.status};
        io.next = nullptr;
        (tail_ ? tail_->next : head_) = &io;
        tail_ = &io;
        if (count_++ == 0) arm(held_[first_].deadline_ns);
        return true;
    }

    void arm(uint64_t deadline_ns) {
        itimerspec t{};
        t.it_value.tv_sec = time_t(deadline_ns / 1000000000u);
        t.it_value.tv_nsec = long(deadline_ns % 1000000000u);
        if (t.it_value.tv_sec == 0 && t.it_value.tv_nsec == 0) t.it_value.tv_nsec = 1;
        timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &t, nullptr);
    }

    static void on_timer(void *self) { static_cast<ErrorChannel *>(self)->release(); }

    // Lets every I/O whose deadline passed go on, in order; re-arms for the next one.
    void release() {
        uint64_t expirations;
        [[maybe_unused]] ssize_t r = ::read(timer_fd_, &expirations, sizeof(expirations));
        const uint64_t now = now_ns();
        while (count_ && held_[first_].deadline_ns <= now) {
            BackendIo &io = *head_;
            const uint16_t status = held_[first_].status;
            head_ = io.next;
            if (!head_) tail_ = nullptr;
            io.next = nullptr;
            first_ = (first_ + 1) % kMaxHeld;
            --count_;
            // May submit more I/O to this channel (held behind the rest, or passed on).
            if (status)
                io.done(io, status);
            else
                base_->submit(io);
        }
        if (count_) arm(held_[first_].deadline_ns);
    }

    ErrorDevice &dev_;
    nvmeof::target::PollContext &ctx_;
    std::unique_ptr<nvmeof::target::IoChannel> base_;
    int timer_fd_ = -1;
    std::vector<Held> held_;
    uint32_t first_ = 0, count_ = 0;
    BackendIo *head_ = nullptr, *tail_ = nullptr;
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
        std::make_unique<ErrorChannel>(*this, ctx, std::move(*base)));
}

void ErrorDevice::inject(InjectOp op, uint32_t count, uint16_t status, uint32_t delay_us) {
    State &s = state_[int(op)];
    // Disarm first so no group claims the old effect with the new count.
    s.remaining.store(0, std::memory_order_release);
    s.status.store(status, std::memory_order_release);
    s.delay_us.store(delay_us, std::memory_order_release);
    s.remaining.store(status || delay_us ? count : 0, std::memory_order_release);
}

ErrorDevice::Claim ErrorDevice::claim(const BackendIo &io) {
    State &s = state_[int(op_of(io.op))];
    uint32_t left = s.remaining.load(std::memory_order_acquire);
    while (left != 0) {
        if (s.remaining.compare_exchange_weak(left, left - 1, std::memory_order_acq_rel)) {
            s.injected.fetch_add(1, std::memory_order_relaxed);
            return {s.status.load(std::memory_order_acquire), s.delay_us.load(std::memory_order_acquire)};
        }
    }
    return {};
}

} // namespace skiff::dataplane
