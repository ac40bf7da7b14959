#include "skiff/dataplane/ram_device.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>

namespace skiff::dataplane {
namespace {
constexpr uint64_t kPage = 4096;
}

Result<std::shared_ptr<RamDevice>> RamDevice::create(uint64_t size_bytes) {
    if (size_bytes == 0 || size_bytes % kPage)
        return make_error(DOCA_ERROR_INVALID_VALUE, "RAM namespace size " + std::to_string(size_bytes) +
                                                        " is not a non-zero multiple of 4096 bytes");
    // Address space for growth: inaccessible (and uncommitted) until grow() opens it.
    uint64_t reserved = size_bytes <= UINT64_MAX / kGrowthFactor ? size_bytes * kGrowthFactor : size_bytes;
    void *p = mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { // no room to reserve: the namespace just cannot grow
        reserved = size_bytes;
        p = mmap(nullptr, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (p == MAP_FAILED || mprotect(p, size_bytes, PROT_READ | PROT_WRITE) != 0) {
        int err = errno;
        if (p != MAP_FAILED) munmap(p, reserved);
        return make_error(DOCA_ERROR_NO_MEMORY, "cannot map " + std::to_string(size_bytes) +
                                                    " bytes for a RAM namespace: " + std::strerror(err));
    }
    return std::shared_ptr<RamDevice>(new RamDevice(static_cast<uint8_t *>(p), size_bytes, reserved));
}

RamDevice::~RamDevice() {
    munmap(base_, reserved_);
}

Status RamDevice::grow(uint64_t new_size_bytes) {
    const uint64_t now = size_bytes();
    if (new_size_bytes <= now || new_size_bytes % kPage)
        return make_error(DOCA_ERROR_INVALID_VALUE,
                          "a RAM namespace grows to a larger multiple of 4096 bytes than its " +
                              std::to_string(now) + ", not to " + std::to_string(new_size_bytes));
    if (new_size_bytes > reserved_)
        return make_error(DOCA_ERROR_NOT_SUPPORTED,
                          "a RAM namespace grows up to " + std::to_string(reserved_) + " bytes (" +
                              std::to_string(kGrowthFactor) + " times the size it started with), not " +
                              std::to_string(new_size_bytes));
    if (mprotect(base_ + now, new_size_bytes - now, PROT_READ | PROT_WRITE) != 0)
        return make_error(DOCA_ERROR_NO_MEMORY,
                          "cannot open " + std::to_string(new_size_bytes - now) +
                              " more bytes of the RAM namespace: " + std::strerror(errno));
    size_.store(new_size_bytes, std::memory_order_release);
    return Status::success();
}

uint16_t RamDevice::read(uint64_t offset, void *dst, size_t len) {
    std::memcpy(dst, base_ + offset, len);
    return 0;
}

uint16_t RamDevice::write(uint64_t offset, const void *src, size_t len) {
    std::memcpy(base_ + offset, src, len);
    return 0;
}

uint16_t RamDevice::compare(uint64_t offset, const void *expected, size_t len, bool &equal) {
    equal = std::memcmp(base_ + offset, expected, len) == 0;
    return 0;
}

uint16_t RamDevice::write_zeroes(uint64_t offset, size_t len) {
    return deallocate(offset, len);
}

uint16_t RamDevice::deallocate(uint64_t offset, size_t len) {
    // Whole pages go back to the kernel (they read as zeroes again); partial edges are cleared.
    uint64_t end = offset + len;
    uint64_t page_begin = (offset + kPage - 1) & ~(kPage - 1);
    uint64_t page_end = end & ~(kPage - 1);
    if (page_begin < page_end) {
        std::memset(base_ + offset, 0, page_begin - offset);
        madvise(base_ + page_begin, page_end - page_begin, MADV_DONTNEED);
        std::memset(base_ + page_end, 0, end - page_end);
    } else {
        std::memset(base_ + offset, 0, len);
    }
    return 0;
}

} // namespace skiff::dataplane
