// The storage behind a namespace, as the controller sees it. nvmeof knows nothing of backends:
// dataplane implements this (null, RAM, later aio and host memory) and hands it to a Namespace.
// Calls are synchronous and made on the poll group thread that owns the queue; they must not
// allocate or lock. Each returns an NVMe status field (0 = success, else wire::Status::make()).
#pragma once

#include <cstddef>
#include <cstdint>

namespace skiff::nvmeof::target {

class BlockDevice {
  public:
    virtual ~BlockDevice() = default;

    // A short name for logs: "ram", "null".
    virtual const char *kind() const = 0;
    // Capacity in bytes (a multiple of the namespace block size).
    virtual uint64_t size_bytes() const = 0;

    virtual uint16_t read(uint64_t offset, void *dst, size_t len) = 0;
    virtual uint16_t write(uint64_t offset, const void *src, size_t len) = 0;
    // Sets `equal` to whether the stored bytes match `expected`.
    virtual uint16_t compare(uint64_t offset, const void *expected, size_t len, bool &equal) = 0;
    virtual uint16_t write_zeroes(uint64_t offset, size_t len) = 0;
    // The range may read back as zeroes afterwards (what DLFEAT advertises).
    virtual uint16_t deallocate(uint64_t offset, size_t len) = 0;
    virtual uint16_t flush() = 0;

    // Asymmetric namespace access (ana.cpp): false while the storage cannot be reached through
    // this target (hostmem: the host agent is gone); its I/O then fails with ANA Inaccessible.
    // ana_changes() counts transitions, so controllers know when to raise the ANA change event.
    virtual bool accessible() const { return true; }
    virtual uint64_t ana_changes() const { return 0; }
};

} // namespace skiff::nvmeof::target
