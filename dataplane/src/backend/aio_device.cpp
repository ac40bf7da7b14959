#include "skiff/dataplane/aio_device.hpp"

#include "aio_channel.hpp"
#include "skiff/core/log.hpp"
#include "skiff/nvmeof/wire/command.hpp"

#include <nvme/types.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace skiff::dataplane {
namespace {

using nvmeof::target::DeallocateMode;
namespace wire = nvmeof::wire;

constexpr uint32_t kMaxQueueDepth = 4096;

Error path_error(const std::string &path, const std::string &what) {
    return make_error(DOCA_ERROR_INVALID_VALUE, "aio backend: " + path + ": " + what);
}

Error errno_error(const std::string &path, const std::string &what, int err) {
    doca_error_t code = err == ENOENT                                     ? DOCA_ERROR_NOT_FOUND
                        : (err == EACCES || err == EROFS || err == EPERM) ? DOCA_ERROR_NOT_PERMITTED
                                                                          : DOCA_ERROR_OPERATING_SYSTEM;
    std::string hint;
    if (err == ENOENT)
        hint = " (it does not exist; to create a regular file, give a size with create, or --size)";
    if (err == EACCES || err == EROFS || err == EPERM) hint = " (the backend needs read and write access)";
    return make_error(code, "aio backend: " + path + ": " + what + ": " + std::strerror(err) + hint);
}

// The smallest O_DIRECT transfer the file accepts: try 512 bytes, then 4096.
uint32_t probe_direct_alignment(int fd) {
    void *buf = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) return 4096;
    uint32_t found = 4096;
    for (uint32_t size : {512u, 4096u}) {
        if (pread(fd, buf, size, 0) >= 0) {
            found = size;
            break;
        }
    }
    munmap(buf, 4096);
    return found;
}

// A block device discards when its queue says it can (sysfs discard_max_bytes > 0).
bool block_device_discards(dev_t rdev) {
    std::ifstream f("/sys/dev/block/" + std::to_string(major(rdev)) + ":" + std::to_string(minor(rdev)) +
                    "/queue/discard_max_bytes");
    uint64_t max = 0;
    return (f >> max) && max > 0;
}

} // namespace

Result<std::shared_ptr<AioDevice>> AioDevice::open(const AioOptions &options) {
    if (options.path.empty()) return make_error(DOCA_ERROR_INVALID_VALUE, "aio backend: no path given");
    if (options.queue_depth == 0 || options.queue_depth > kMaxQueueDepth)
        return path_error(options.path, "queue depth " + std::to_string(options.queue_depth) +
                                            " is outside 1.." + std::to_string(kMaxQueueDepth));
    if (options.create && options.size_bytes == 0)
        return path_error(options.path, "`create` needs a size to create or extend the file to");
    int flags = O_RDWR | O_CLOEXEC | (options.buffered ? 0 : O_DIRECT) | (options.create ? O_CREAT : 0);
    int fd = ::open(options.path.c_str(), flags, 0644);
    if (fd < 0 && errno == EINVAL && !options.buffered)
        return path_error(options.path, "cannot open with O_DIRECT (direct I/O is not supported there; "
                                        "the buffered option uses the page cache)");
    if (fd < 0) return errno_error(options.path, "cannot open", errno);
    std::shared_ptr<AioDevice> dev(new AioDevice(options, fd));
    if (auto st = dev->probe(); !st) return st.error();
    skiff::log::get("dataplane")
        ->info("aio backend: {} ({}, {}): {} bytes, block size {}, deallocate {}", options.path,
               dev->block_device_ ? "block device" : "file", options.buffered ? "buffered" : "O_DIRECT",
               dev->size_bytes(), dev->block_size_,
               dev->dealloc_ == DeallocateMode::kReadsZeroes   ? "reads zeroes"
               : dev->dealloc_ == DeallocateMode::kUnspecified ? "discard"
                                                               : "unsupported");
    return dev;
}

Status AioDevice::probe() {
    const std::string &path = options_.path;
    struct stat st {};
    if (fstat(fd_, &st) != 0) return errno_error(path, "cannot stat", errno);
    uint64_t actual = 0;
    if (S_ISBLK(st.st_mode)) {
        block_device_ = true;
        if (options_.create) return path_error(path, "`create` applies to regular files, not block devices");
        int lbs = 0;
        if (ioctl(fd_, BLKGETSIZE64, &actual) != 0 || ioctl(fd_, BLKSSZGET, &lbs) != 0)
            return errno_error(path, "cannot read the block device's geometry", errno);
        block_size_ = static_cast<uint32_t>(lbs);
        dealloc_ =
            block_device_discards(st.st_rdev) ? DeallocateMode::kUnspecified : DeallocateMode::kUnsupported;
    } else if (S_ISREG(st.st_mode)) {
        actual = static_cast<uint64_t>(st.st_size);
        if (options_.create && actual < options_.size_bytes) {
            if (ftruncate(fd_, static_cast<off_t>(options_.size_bytes)) != 0)
                return errno_error(path, "cannot extend to " + std::to_string(options_.size_bytes) + " bytes",
                                   errno);
            actual = options_.size_bytes;
        }
        block_size_ = options_.buffered ? 512 : probe_direct_alignment(fd_);
        // Punching a hole past the end of the file changes nothing, but says whether the file
        // system can punch at all.
        uint64_t past_end = (actual + 4095) & ~uint64_t(4095);
        bool punches = fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                 static_cast<off_t>(past_end), 4096) == 0;
        dealloc_ = punches ? DeallocateMode::kReadsZeroes : DeallocateMode::kUnsupported;
    } else {
        return path_error(path, "is neither a regular file nor a block device");
    }
    uint64_t want = options_.size_bytes ? options_.size_bytes : actual;
    if (want > actual)
        return path_error(path, "is " + std::to_string(actual) + " bytes, smaller than the requested size " +
                                    std::to_string(want) +
                                    (block_device_ ? "" : " (set `create` to extend the file)"));
    size_ = want / block_size_ * block_size_;
    if (size_ == 0)
        return path_error(path, "is " + std::to_string(actual) + " bytes: too small for one " +
                                    std::to_string(block_size_) + "-byte block (give a size and `create`)");
    return Status::success();
}

Status AioDevice::grow(uint64_t new_size_bytes) {
    const std::string &path = options_.path;
    if (new_size_bytes <= size_bytes() || new_size_bytes % block_size_)
        return path_error(path, "grows to a larger multiple of " + std::to_string(block_size_) +
                                    " bytes than its " + std::to_string(size_bytes()) + ", not to " +
                                    std::to_string(new_size_bytes));
    uint64_t actual = 0;
    if (block_device_) {
        if (ioctl(fd_, BLKGETSIZE64, &actual) != 0)
            return errno_error(path, "cannot read the block device's size", errno);
        if (actual < new_size_bytes)
            return path_error(path, "is " + std::to_string(actual) + " bytes, smaller than " +
                                        std::to_string(new_size_bytes) + " (grow the device first)");
    } else {
        struct stat st {};
        if (fstat(fd_, &st) != 0) return errno_error(path, "cannot stat", errno);
        actual = static_cast<uint64_t>(st.st_size);
        if (actual < new_size_bytes && ftruncate(fd_, static_cast<off_t>(new_size_bytes)) != 0)
            return errno_error(path, "cannot extend to " + std::to_string(new_size_bytes) + " bytes", errno);
    }
    size_.store(new_size_bytes, std::memory_order_release);
    return Status::success();
}

AioDevice::~AioDevice() {
    ::close(fd_);
}

Result<std::unique_ptr<nvmeof::target::IoChannel>>
AioDevice::open_channel(nvmeof::target::PollContext &ctx, const nvmeof::target::ChannelParams &params) {
    uint32_t depth = params.queue_depth ? params.queue_depth : options_.queue_depth;
    auto ch = std::make_unique<AioChannel>(*this, ctx, depth, params.max_io_bytes);
    if (auto st = ch->start(); !st) return st.error();
    return std::unique_ptr<nvmeof::target::IoChannel>(std::move(ch));
}

int AioDevice::change_range(unsigned long blk_request, int falloc_mode, uint64_t offset, uint64_t len) {
    if (block_device_) {
        uint64_t range[2] = {offset, len};
        return ioctl(fd_, blk_request, range);
    }
    return fallocate(fd_, falloc_mode | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                     static_cast<off_t>(len));
}

uint16_t AioDevice::write_zeroes(uint64_t offset, uint64_t len, const uint8_t *zero_buf, uint32_t zero_len) {
    if (zero_range_ok_.load(std::memory_order_relaxed)) {
        if (change_range(BLKZEROOUT, FALLOC_FL_ZERO_RANGE, offset, len) == 0) return 0;
        if (errno != EOPNOTSUPP && errno != ENOTTY && errno != EINVAL) {
            skiff::log::get("dataplane")
                ->warn("aio backend: {}: zeroing {} bytes at {} failed: {}", path(), len, offset,
                       std::strerror(errno));
            return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
        }
        zero_range_ok_.store(false, std::memory_order_relaxed); // write zeroes from now on
    }
    for (uint64_t done = 0; done < len;) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(zero_len, len - done));
        ssize_t w = pwrite(fd_, zero_buf, n, static_cast<off_t>(offset + done));
        if (w <= 0) {
            skiff::log::get("dataplane")
                ->warn("aio backend: {}: writing zeroes at {} failed: {}", path(), offset + done,
                       w < 0 ? std::strerror(errno) : "short write");
            return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
        }
        done += static_cast<uint64_t>(w);
    }
    return 0;
}

uint16_t AioDevice::deallocate(uint64_t offset, uint64_t len) {
    if (dealloc_ == DeallocateMode::kUnsupported) return 0; // advisory
    if (change_range(BLKDISCARD, FALLOC_FL_PUNCH_HOLE, offset, len) == 0) return 0;
    skiff::log::get("dataplane")
        ->warn("aio backend: {}: deallocating {} bytes at {} failed: {}", path(), len, offset,
               std::strerror(errno));
    return wire::Status::make(NVME_SCT_GENERIC, NVME_SC_INTERNAL, false);
}

uint16_t AioDevice::flush_inline() {
    if (fdatasync(fd_) == 0) return 0;
    skiff::log::get("dataplane")->warn("aio backend: {}: fdatasync failed: {}", path(), std::strerror(errno));
    return wire::Status::make(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT, false);
}

} // namespace skiff::dataplane
