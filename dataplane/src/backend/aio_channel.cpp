#include "aio_channel.hpp"

#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

namespace skiff::dataplane {
namespace {

using nvmeof::target::BackendIo;
using nvmeof::target::IoOp;
namespace wire = nvmeof::wire;

constexpr uint32_t kCompareBuffers = 4; // Compares in flight at once per channel
constexpr uint32_t kZeroBufferLen = 64 * 1024;

} // namespace

AioChannel::AioChannel(AioDevice &dev, nvmeof::target::PollContext &ctx, uint32_t depth,
                       uint32_t max_io_bytes)
    : dev_(dev), ctx_(ctx), depth_(depth), max_io_(max_io_bytes) {}

Status AioChannel::start() {
    const std::string &path = dev_.path();
    if (int rc = io_setup(static_cast<int>(depth_), &aio_); rc != 0) {
        aio_ = nullptr;
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "aio backend: " + path + ": io_setup(" + std::to_string(depth_) + ") failed: " +
                              std::strerror(-rc) + (rc == -EAGAIN ? " (raise /proc/sys/fs/aio-max-nr)" : ""));
    }
    event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (event_fd_ < 0)
        return make_error(DOCA_ERROR_OPERATING_SYSTEM,
                          "aio backend: eventfd: " + std::string(std::strerror(errno)));
    // Bounce buffers for Compare and one zero buffer, page aligned (O_DIRECT), lazily backed.
    uint32_t bounces = std::min(depth_, kCompareBuffers);
    zero_len_ = std::max<uint32_t>(kZeroBufferLen, dev_.min_block_size());
    buffers_len_ = static_cast<size_t>(bounces) * max_io_ + zero_len_;
    void *p = mmap(nullptr, buffers_len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return make_error(DOCA_ERROR_NO_MEMORY, "aio backend: " + path + ": cannot map " +
                                                    std::to_string(buffers_len_) +
                                                    " bytes of bounce buffers");
    buffers_ = static_cast<uint8_t *>(p);
    for (uint32_t i = 0; i < bounces; ++i)
        free_bounce_.push_back(buffers_ + static_cast<size_t>(i) * max_io_);
    zero_buf_ = buffers_ + static_cast<size_t>(bounces) * max_io_;
    slots_.resize(depth_);
    free_slots_.reserve(depth_);
    for (auto &s : slots_) free_slots_.push_back(&s);
    events_.resize(depth_);
    if (auto st = ctx_.watch_fd(event_fd_, on_eventfd, this); !st)
        return make_error(st.error().code, "aio backend: " + path + ": " + st.error().message);
    watching_ = true;
    return Status::success();
}

AioChannel::~AioChannel() {
    if (watching_) ctx_.unwatch_fd(event_fd_);
    if (aio_) io_destroy(aio_); // waits for anything the kernel still has in flight
    if (event_fd_ >= 0) ::close(event_fd_);
    if (buffers_) munmap(buffers_, buffers_len_);
}

uint16_t AioChannel::check(const BackendIo &io) const {
    if (io.op == IoOp::kFlush) return 0;
    if (io.offset > dev_.size_bytes() || io.len > dev_.size_bytes() - io.offset)
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_LBA_RANGE, true);
    if (dev_.options().buffered || io.op == IoOp::kWriteZeroes || io.op == IoOp::kDeallocate) return 0;
    // O_DIRECT: offsets and lengths in whole device blocks, memory aligned to them.
    uint64_t mask = dev_.min_block_size() - 1;
    if ((io.offset | io.len) & mask) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    if (reinterpret_cast<uintptr_t>(io.buf) & mask) {
        log_->error("aio backend: {}: I/O buffer {} is not aligned to {} bytes (O_DIRECT)", dev_.path(),
                    io.buf, mask + 1);
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, true);
    }
    if (io.op == IoOp::kCompare && io.len > max_io_)
        return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD, true);
    return 0;
}

void AioChannel::submit(BackendIo &io) {
    ++in_flight_;
    if (uint16_t st = check(io)) return finish(io, st);
    switch (io.op) {
    case IoOp::kWriteZeroes:
        return finish(io, dev_.write_zeroes(io.offset, io.len, zero_buf_, zero_len_));
    case IoOp::kDeallocate:
        return finish(io, dev_.deallocate(io.offset, io.len));
    case IoOp::kFlush:
        if (!fdsync_async_) return finish(io, dev_.flush_inline());
        break;
    default:
        break;
    }
    // Keep order: nothing overtakes what already waits.
    if (waiting_.empty() && start_io(io)) return;
    waiting_.push_back(io);
}

bool AioChannel::start_io(BackendIo &io) {
    if (free_slots_.empty() || (io.op == IoOp::kCompare && free_bounce_.empty())) return false;
    Slot &s = *free_slots_.back();
    int fd = dev_.fd();
    switch (io.op) {
    case IoOp::kRead:
        io_prep_pread(&s.cb, fd, io.buf, io.len, static_cast<long long>(io.offset));
        break;
    case IoOp::kWrite:
        io_prep_pwrite(&s.cb, fd, io.buf, io.len, static_cast<long long>(io.offset));
        // FUA: the kernel completes it only once the data (and what is needed to read it back)
        // is stable, as pwritev2(RWF_DSYNC) would; other writes are not slowed down.
        if (io.fua) s.cb.aio_rw_flags = RWF_DSYNC;
        break;
    case IoOp::kCompare:
        s.bounce = free_bounce_.back();
        io_prep_pread(&s.cb, fd, s.bounce, io.len, static_cast<long long>(io.offset));
        break;
    case IoOp::kFlush:
        io_prep_fdsync(&s.cb, fd);
        break;
    default:
        return false; // not reached: run inline by submit()
    }
    io_set_eventfd(&s.cb, event_fd_);
    s.cb.data = &s;
    s.io = &io;
    iocb *list[1] = {&s.cb};
    int rc = io_submit(aio_, 1, list);
    if (rc == 1) {
        free_slots_.pop_back();
        if (io.op == IoOp::kCompare) free_bounce_.pop_back();
        return true;
    }
    s.bounce = nullptr;
    if (rc == -EAGAIN) return false; // the kernel is full: wait for a completion
    if (io.op == IoOp::kFlush && rc == -EINVAL) {
        // This kernel or file system has no asynchronous fsync: do it inline from now on.
        log_->info("aio backend: {}: no asynchronous fdatasync here; Flush runs inline", dev_.path());
        fdsync_async_ = false;
        finish(io, dev_.flush_inline());
        return true;
    }
    log_->warn("aio backend: {}: io_submit failed: {}", dev_.path(), std::strerror(-rc));
    finish(io, wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false));
    return true;
}

void AioChannel::finish(BackendIo &io, uint16_t status) {
    --in_flight_;
    io.done(io, status);
}

void AioChannel::on_eventfd(void *self) {
    static_cast<AioChannel *>(self)->reap();
}

uint16_t AioChannel::status_of(const Slot &s, long res) const {
    const BackendIo &io = *s.io;
    bool full = io.op == IoOp::kFlush ? res == 0 : res >= 0 && static_cast<uint64_t>(res) == io.len;
    if (full) {
        if (io.op == IoOp::kCompare && std::memcmp(s.bounce, io.buf, io.len) != 0)
            return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
        return 0;
    }
    const char *what = io.op == IoOp::kWrite ? "write" : io.op == IoOp::kFlush ? "fdatasync" : "read";
    log_->warn("aio backend: {}: {} of {} bytes at {} failed: {}", dev_.path(), what, io.len, io.offset,
               res < 0 ? std::strerror(static_cast<int>(-res)) : "short transfer");
    // The file system is full: Capacity Exceeded with Do Not Retry, as Linux nvmet answers
    // -ENOSPC (the host fails the I/O with ENOSPC instead of retrying into a full disk).
    if (res == -ENOSPC) return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_CAP_EXCEEDED, true);
    if (io.op == IoOp::kWrite || io.op == IoOp::kFlush)
        return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
    return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_READ_ERROR, false);
}

void AioChannel::reap() {
    uint64_t signalled;
    [[maybe_unused]] ssize_t r = ::read(event_fd_, &signalled, sizeof(signalled));
    timespec no_wait{0, 0};
    for (;;) {
        int n = io_getevents(aio_, 0, static_cast<long>(events_.size()), events_.data(), &no_wait);
        if (n <= 0) break;
        for (int i = 0; i < n; ++i) {
            Slot &s = *static_cast<Slot *>(events_[i].data);
            BackendIo &io = *s.io;
            uint16_t st = status_of(s, static_cast<long>(events_[i].res));
            if (s.bounce) free_bounce_.push_back(s.bounce);
            s.bounce = nullptr;
            s.io = nullptr;
            free_slots_.push_back(&s);
            finish(io, st); // may submit more I/O to this channel
        }
        start_waiting();
        if (static_cast<size_t>(n) < events_.size()) break;
    }
}

void AioChannel::start_waiting() {
    while (BackendIo *io = waiting_.pop_front()) {
        if (!start_io(*io)) {
            waiting_.push_front(*io); // still no room
            return;
        }
    }
}

} // namespace skiff::dataplane
