#include "rbd_channel.hpp"

#include "skiff/dataplane/rbd_status.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/timerfd.h>

namespace skiff::dataplane {
namespace {

using nvmeof::target::BackendIo;
using nvmeof::target::IoOp;
namespace wire = nvmeof::wire;

constexpr uint32_t kCompareBuffers = 4; // Compares in flight at once per channel
// While the cluster cannot be reached: ANA Inaccessible (SCT 3h, SC 02h), retryable.
constexpr uint16_t kInaccessible = wire::Status::make(NVME_SCT_PATH, NVME_SC_ANA_INACCESSIBLE);

// The watchdog's clock (the device's: coarse, a few ms, is plenty for a bound of seconds).
uint64_t now_ms() {
    return RbdDevice::monotonic_ms();
}

// How often the watchdog looks: a quarter of the bound, at most once a second.
uint64_t watchdog_period_ms(uint32_t bound_s) {
    return std::min<uint64_t>(1000, std::max<uint64_t>(50, bound_s * 1000ull / 4));
}

const char *op_name(IoOp op) {
    switch (op) {
    case IoOp::kRead:
        return "read";
    case IoOp::kWrite:
        return "write";
    case IoOp::kCompare:
        return "compare";
    case IoOp::kWriteZeroes:
        return "write zeroes";
    case IoOp::kDeallocate:
        return "discard";
    case IoOp::kFlush:
        return "flush";
    case IoOp::kCompareAndWrite:
        return "compare-and-write";
    }
    return "?";
}

} // namespace

RbdChannel::RbdChannel(RbdDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth,
                       uint32_t max_io_bytes)
    : dev_(dev), ctx_(ctx), depth_(depth), max_io_(max_io_bytes) {}

Status RbdChannel::start() {
    if (auto st = done_.open(); !st) return st;
    uint32_t bounces = std::min(depth_, kCompareBuffers);
    buffers_len_ = static_cast<size_t>(bounces) * max_io_;
    void *p = mmap(nullptr, buffers_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return make_error(DOCA_ERROR_NO_MEMORY, "rbd backend: " + dev_.label() + ": cannot map " +
                                                    std::to_string(buffers_len_) +
                                                    " bytes of compare buffers");
    buffers_ = static_cast<uint8_t *>(p);
    for (uint32_t i = 0; i < bounces; ++i)
        free_bounce_.push_back(buffers_ + static_cast<size_t>(i) * max_io_);
    slots_.resize(depth_);
    free_slots_.reserve(depth_);
    for (auto &s : slots_) {
        s.channel = this;
        free_slots_.push_back(&s);
    }
    if (auto st = ctx_.watch_fd(done_.fd(), on_eventfd, this); !st)
        return make_error(st.error().code, "rbd backend: " + dev_.label() + ": " + st.error().message);
    watching_ = true;
    timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd_ < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "rbd backend: " + dev_.label() + ": timerfd: " + std::strerror(errno));
    uint64_t period = watchdog_period_ms(dev_.options().op_timeout_s);
    itimerspec t{};
    t.it_interval.tv_sec = static_cast<time_t>(period / 1000);
    t.it_interval.tv_nsec = static_cast<long>(period % 1000) * 1000000;
    t.it_value = t.it_interval;
    timerfd_settime(timer_fd_, 0, &t, nullptr);
    if (auto st = ctx_.watch_fd(timer_fd_, on_watchdog, this); !st)
        return make_error(st.error().code, "rbd backend: " + dev_.label() + ": " + st.error().message);
    return Status::success();
}

RbdChannel::~RbdChannel() {
    // in_flight_ is 0 here (the group drains the channel first), so librbd holds no slot.
    if (watching_) ctx_.unwatch_fd(done_.fd());
    if (timer_fd_ >= 0) {
        ctx_.unwatch_fd(timer_fd_);
        ::close(timer_fd_);
    }
    set_stalled(false);
    if (buffers_) munmap(buffers_, buffers_len_);
}

uint16_t RbdChannel::check(const BackendIo &io) const {
    if (io.op == IoOp::kFlush) return 0;
    if (io.offset > dev_.size_bytes() || io.len > dev_.size_bytes() - io.offset)
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true);
    if (io.op == IoOp::kCompare && io.len > max_io_)
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    return 0;
}

void RbdChannel::submit(BackendIo &io) {
    ++in_flight_;
    if (uint16_t st = check(io)) return finish(io, st);
    // Unreachable cluster: fail at once (retryable path error) rather than queue into librbd.
    if (!dev_.accessible()) return finish(io, kInaccessible);
    // Keep order: nothing overtakes what already waits.
    if (waiting_.empty() && start_io(io)) return;
    waiting_.push_back(io);
}

bool RbdChannel::start_io(BackendIo &io) {
    if (free_slots_.empty() || (io.op == IoOp::kCompare && free_bounce_.empty())) return false;
    Slot &s = *free_slots_.back();
    // librbd allocates its completion object itself (it has no caller-provided form); the slot,
    // its iovec and everything skiff keeps per I/O are the channel's own.
    rbd_completion_t c = nullptr;
    if (int rc = rbd_aio_create_completion(&s, on_rbd_complete, &c); rc < 0) {
        log_->warn("rbd backend: {}: cannot create a completion: {}", dev_.label(), std::strerror(-rc));
        finish(io, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false));
        return true;
    }
    s.io = &io;
    s.op = io.op;
    s.result = 0;
    s.mismatch_off = 0;
    s.iov = {io.buf, static_cast<size_t>(io.len)};
    if (io.op == IoOp::kCompare) {
        s.bounce = free_bounce_.back();
        s.iov.iov_base = s.bounce;
    }
    free_slots_.pop_back();
    if (s.bounce) free_bounce_.pop_back();
    rbd_image_t img = dev_.image();
    ssize_t rc = 0;
    switch (io.op) {
    case IoOp::kRead:
    case IoOp::kCompare: // the stored bytes into a bounce buffer, then memcmp on completion
        rc = rbd_aio_readv(img, &s.iov, 1, io.offset, c);
        break;
    case IoOp::kWrite:
        rc = rbd_aio_writev(img, &s.iov, 1, io.offset, c);
        break;
    case IoOp::kWriteZeroes:
        rc = rbd_aio_write_zeroes(img, io.offset, io.len, c, 0, 0);
        break;
    case IoOp::kDeallocate:
        rc = rbd_aio_discard(img, io.offset, io.len, c);
        break;
    case IoOp::kFlush:
        rc = rbd_aio_flush(img, c);
        break;
    case IoOp::kCompareAndWrite: // one OSD operation (cmpext + write): atomic for every client
        rc = rbd_aio_compare_and_write(img, io.offset, io.len, static_cast<const char *>(io.buf),
                                       static_cast<const char *>(io.write_buf), c, &s.mismatch_off, 0);
        break;
    }
    if (rc >= 0) {
        s.busy = true;
        s.started_ms = now_ms();
        return true;
    }
    // Refused before it started: librbd will not call back.
    rbd_aio_release(c);
    s.result = rc;
    BackendIo &failed = *s.io;
    uint16_t st = status_of(s);
    release(s);
    finish(failed, st);
    return true;
}

// librbd's thread: record the result and hand the slot to the group. Nothing else here.
void RbdChannel::on_rbd_complete(rbd_completion_t c, void *arg) {
    Slot &s = *static_cast<Slot *>(arg);
    s.result = rbd_aio_get_return_value(c);
    rbd_aio_release(c);
    s.channel->done_.push(&s);
}

void RbdChannel::on_eventfd(void *self) {
    static_cast<RbdChannel *>(self)->reap();
}

uint16_t RbdChannel::status_of(const Slot &s) const {
    const BackendIo &io = *s.io;
    if (s.result >= 0) {
        if (io.op == IoOp::kCompare && std::memcmp(s.bounce, io.buf, io.len) != 0)
            return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
        return 0;
    }
    if (rbd_result_unreachable(s.result)) {
        dev_.mark_lost(static_cast<int>(s.result));
    } else if (s.result == -EILSEQ && io.op == IoOp::kCompareAndWrite) {
        log_->debug("rbd backend: {}: compare-and-write of {} bytes at {}: miscompare at byte {}",
                    dev_.label(), io.len, io.offset, s.mismatch_off);
    } else {
        log_->warn("rbd backend: {}: {} of {} bytes at {} failed: {}", dev_.label(), op_name(io.op), io.len,
                   io.offset, std::strerror(static_cast<int>(-s.result)));
    }
    return rbd_io_status(io.op, s.result);
}

void RbdChannel::release(Slot &s) {
    if (s.bounce) free_bounce_.push_back(s.bounce);
    s.bounce = nullptr;
    s.io = nullptr;
    s.busy = false;
    s.abandoned = false;
    free_slots_.push_back(&s);
}

void RbdChannel::finish(BackendIo &io, uint16_t status) {
    --in_flight_;
    io.done(io, status);
}

void RbdChannel::reap() {
    RbdCompletionNode *n = done_.take_all();
    while (n) {
        Slot &s = *static_cast<Slot *>(n);
        n = n->next_done;
        if (s.abandoned) { // its command was answered already: librbd is done with the slot now
            if (--abandoned_ == 0)
                log_->info("rbd backend: {}: every I/O answered early is back from librbd (the last: {} {})",
                           dev_.label(), op_name(s.op),
                           s.result >= 0 ? "done" : std::strerror(static_cast<int>(-s.result)));
            release(s);
            continue;
        }
        BackendIo &io = *s.io;
        uint16_t st = status_of(s);
        release(s);
        finish(io, st); // may submit more I/O to this channel
    }
    start_waiting();
}

void RbdChannel::start_waiting() {
    while (BackendIo *io = waiting_.pop_front()) {
        if (!dev_.accessible()) {
            finish(*io, kInaccessible);
            continue;
        }
        if (!start_io(*io)) {
            waiting_.push_front(*io); // still no room
            return;
        }
    }
}

void RbdChannel::on_watchdog(void *self) {
    auto *ch = static_cast<RbdChannel *>(self);
    uint64_t expirations;
    [[maybe_unused]] ssize_t r = ::read(ch->timer_fd_, &expirations, sizeof(expirations));
    ch->check_ages();
}

// An I/O older than the bound: the cluster is not answering (librados' own timeouts do not
// bound the time an I/O waits inside librbd: exclusive-lock, QoS, an image refresh). The
// namespace turns inaccessible now, so the host learns it (ANA change notice) and new I/O fails
// over at once; what librbd no longer needs the request's buffer for is answered now.
void RbdChannel::check_ages() {
    dev_.check_probe(now_ms()); // a hung probe must not hide a lost cluster
    if (in_flight_ == 0 && !stalled_) return;
    // What librbd has finished is not stuck, even when its eventfd was not read yet.
    if (in_flight_ + abandoned_ > 0) reap();
    const uint64_t bound_ms = dev_.options().op_timeout_s * 1000ull, now = now_ms();
    // Inaccessible until librbd has returned everything it held too long, answered or not.
    bool stalled = abandoned_ > 0;
    uint32_t answered = 0;
    uint64_t oldest_ms = 0;
    for (Slot &s : slots_) {
        if (!s.busy || s.abandoned || now - s.started_ms < bound_ms) continue;
        stalled = true;
        // A Read's bytes land in the request's buffer whenever librbd finishes: it must wait, and
        // so does a compare-and-write (its buffers are not known to be copied at submission).
        // Writes are only answered early when exclusive-lock orders them against a retry that
        // goes through another gateway (the lock moves only once this client's writes are done).
        bool early = s.op == IoOp::kCompare ||
                     (s.op != IoOp::kRead && s.op != IoOp::kCompareAndWrite && dev_.exclusive_lock());
        if (!early) continue;
        set_stalled(true); // the namespace turns inaccessible before the command completes
        oldest_ms = std::max(oldest_ms, now - s.started_ms);
        ++answered;
        BackendIo &io = *s.io;
        s.abandoned = true;
        s.io = nullptr;
        ++abandoned_;
        finish(io, kInaccessible);
    }
    if (answered)
        log_->warn(
            "rbd backend: {}: {} I/O inside librbd for more than {} s (the oldest {} ms): answered with "
            "ANA Inaccessible; librbd keeps their slots until it returns them",
            dev_.label(), answered, dev_.options().op_timeout_s, oldest_ms);
    set_stalled(stalled);
    if (stalled) start_waiting(); // whatever waits for a slot fails over too (inaccessible now)
}

void RbdChannel::set_stalled(bool stalled) {
    if (stalled == stalled_) return;
    stalled_ = stalled;
    dev_.set_stalled(stalled);
}

} // namespace skiff::dataplane
