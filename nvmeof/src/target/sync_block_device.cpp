// The channel of synchronous backends (null, RAM): every I/O runs and completes inside submit().
#include "skiff/nvmeof/target/block_device.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target {
namespace {

bool changes_data(IoOp op) {
    return op == IoOp::kWrite || op == IoOp::kWriteZeroes || op == IoOp::kDeallocate ||
           op == IoOp::kCompareAndWrite;
}

class InlineChannel final : public IoChannel {
  public:
    explicit InlineChannel(SyncBlockDevice &dev) : dev_(dev) {}
    ~InlineChannel() override {
        // The poll group destroys a channel only once in_flight() is 0; at shutdown, after
        // every connection (and its views) is gone. Nothing may point here any more.
        for (HeldView *v = held_; v; v = v->next) v->channel = nullptr;
    }

    void submit(BackendIo &io) override {
        if (held_ && changes_data(io.op)) materialize_overlapping(io.offset, io.len);
        uint16_t status = dev_.run(io);
        if (io.view) io.view_channel = this;
        io.done(io, status);
    }
    uint32_t in_flight() const override { return held_count_; }

    void hold_view(HeldView &v) override {
        v.channel = this;
        v.prev = nullptr;
        v.next = held_;
        if (held_) held_->prev = &v;
        held_ = &v;
        ++held_count_;
    }
    void release_view(HeldView &v) override {
        (v.prev ? v.prev->next : held_) = v.next;
        if (v.next) v.next->prev = v.prev;
        v.prev = v.next = nullptr;
        v.channel = nullptr;
        --held_count_;
    }

  private:
    // A write, zeroing or deallocation on this poll group is about to change [offset, offset +
    // len): every held view of those bytes is copied out first, so the reads they belong to
    // return what the device held when they completed. (Poll groups do not see each other's
    // views; I/O from different groups to the same blocks was never ordered here, as in the
    // copying path, where two groups' memcpys can overlap too.)
    void materialize_overlapping(uint64_t offset, uint64_t len) {
        for (HeldView *v = held_; v;) {
            HeldView *next = v->next;
            if (v->offset < offset + len && offset < v->offset + v->len) {
                release_view(*v);
                v->materialize(*v);
            }
            v = next;
        }
    }

    SyncBlockDevice &dev_;
    HeldView *held_ = nullptr;
    uint32_t held_count_ = 0;
};

} // namespace

uint16_t SyncBlockDevice::run(BackendIo &io) {
    switch (io.op) {
    case IoOp::kRead:
        if (io.view_ok && (io.view = read_view(io.offset, io.len)) != nullptr) return 0;
        return read(io.offset, io.buf, io.len);
    case IoOp::kWrite:
        return write(io.offset, io.buf, io.len);
    case IoOp::kCompare: {
        bool equal = false;
        uint16_t st = compare(io.offset, io.buf, io.len, equal);
        if (st == 0 && !equal) st = wire::Status::make(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED, true);
        return st;
    }
    case IoOp::kWriteZeroes:
        return write_zeroes(io.offset, io.len);
    case IoOp::kDeallocate:
        return deallocate(io.offset, io.len);
    case IoOp::kFlush:
        return flush();
    case IoOp::kCompareAndWrite: // never sent: atomic_compare_and_write() is false here
        break;
    }
    return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, true);
}

Result<std::unique_ptr<IoChannel>> SyncBlockDevice::open_channel(PollContext &, const ChannelParams &) {
    return std::unique_ptr<IoChannel>(std::make_unique<InlineChannel>(*this));
}

} // namespace skiff::nvmeof::target
