// The aio backend: a regular file or a block device, read and written through libaio. Each
// poll group gets its own kernel AIO context (io_setup, queue_depth deep) whose completions
// signal an eventfd watched in the group's epoll loop, so nothing blocks the group and the
// data path neither allocates nor locks.
//
// - O_DIRECT by default (data goes straight between the request buffers and the device; the
//   namespace block size must be a multiple of min_block_size(), and I/O buffers aligned to
//   it); `buffered` goes through the page cache instead (Flush then matters even more).
// - Flush: an asynchronous fdatasync (IOCB_CMD_FDSYNC), run inline only where the kernel
//   refuses it.
// - Deallocate: fallocate(PUNCH_HOLE) on files (reads back zeroes), BLKDISCARD on block
//   devices that discard (may not read back zeroes); reported as such (DLFEAT, ONCS).
// - Write Zeroes: fallocate(ZERO_RANGE) / BLKZEROOUT, else writes of a zero buffer.
//   Deallocate and Write Zeroes run inline on the poll group thread: on files they are extent
//   changes (quick); on large block device ranges they can take longer (a known cost).
#pragma once

#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace skiff::dataplane {

struct AioOptions {
    std::string path;
    bool buffered = false;      // page cache instead of O_DIRECT
    uint32_t queue_depth = 128; // I/Os in flight per poll group (1..4096)
    uint64_t size_bytes = 0;    // 0: the file's or device's size; else at most that
    bool create = false;        // create / extend a regular file to size_bytes
};

class AioDevice final : public nvmeof::target::BlockDevice {
  public:
    // Opens (and with `create`, creates or extends) the file or device. Every error names the
    // path and what is wrong (missing, read-only, too small, not a file or block device).
    static Result<std::shared_ptr<AioDevice>> open(const AioOptions &options);
    ~AioDevice() override;
    AioDevice(const AioDevice &) = delete;
    AioDevice &operator=(const AioDevice &) = delete;

    const char *kind() const override { return "aio"; }
    uint64_t size_bytes() const override { return size_.load(std::memory_order_acquire); }
    // A regular file is extended (ftruncate) when it is smaller; a block device must already be
    // that large (grow it first: lvextend, a larger LUN).
    Status grow(uint64_t new_size_bytes) override;
    // O_DIRECT: the device's logical block size or the file system's direct I/O alignment.
    uint32_t min_block_size() const override { return block_size_; }
    // The page cache (buffered), else the disk's own cache and the file system's metadata:
    // completed writes are durable only after Flush (fdatasync) or with FUA (RWF_DSYNC).
    bool volatile_write_cache() const override { return true; }
    nvmeof::target::DeallocateMode deallocate_mode() const override { return dealloc_; }
    Result<std::unique_ptr<nvmeof::target::IoChannel>>
    open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) override;

    const std::string &path() const { return options_.path; }
    const AioOptions &options() const { return options_; }
    bool is_block_device() const { return block_device_; }
    int fd() const { return fd_; }

    // Synchronous helpers the channels use for the operations AIO has no command for.
    uint16_t write_zeroes(uint64_t offset, uint64_t len, const uint8_t *zero_buf, uint32_t zero_len);
    uint16_t deallocate(uint64_t offset, uint64_t len);
    uint16_t flush_inline();

  private:
    AioDevice(AioOptions options, int fd) : options_(std::move(options)), fd_(fd) {}
    Status probe();
    // ioctl(blk_request) on a block device, fallocate(falloc_mode | KEEP_SIZE) on a file.
    int change_range(unsigned long blk_request, int falloc_mode, uint64_t offset, uint64_t len);

    AioOptions options_;
    int fd_;
    bool block_device_ = false;
    std::atomic<uint64_t> size_{0};
    uint32_t block_size_ = 512;
    nvmeof::target::DeallocateMode dealloc_ = nvmeof::target::DeallocateMode::kUnsupported;
    std::atomic<bool> zero_range_ok_{true}; // fallocate(ZERO_RANGE) / BLKZEROOUT not refused yet
};

} // namespace skiff::dataplane
