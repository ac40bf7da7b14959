// The channel of synchronous backends (null, RAM): every I/O runs and completes inside submit().
#include "skiff/nvmeof/target/block_device.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

namespace skiff::nvmeof::target {
namespace {

class InlineChannel final : public IoChannel {
  public:
    explicit InlineChannel(SyncBlockDevice &dev) : dev_(dev) {}
    void submit(BackendIo &io) override { io.done(io, dev_.run(io)); }
    uint32_t in_flight() const override { return 0; }

  private:
    SyncBlockDevice &dev_;
};

} // namespace

uint16_t SyncBlockDevice::run(const BackendIo &io) {
    switch (io.op) {
    case IoOp::kRead:
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
