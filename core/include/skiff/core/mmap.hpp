// C++ handle for doca_mmap: a started local mmap or an imported one, destroyed on destruction.
// Declare it after the Device it uses and before the inventories / bufs that point into it.
#pragma once

#include <skiff/core/status.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>

struct doca_mmap;
struct doca_dev;

namespace skiff::core {

class Mmap {
  public:
    Mmap() = default;
    explicit Mmap(doca_mmap *mmap) : mmap_(mmap) {}
    Mmap(Mmap &&other) noexcept : mmap_(std::exchange(other.mmap_, nullptr)) {}
    Mmap &operator=(Mmap &&other) noexcept;
    Mmap(const Mmap &) = delete;
    Mmap &operator=(const Mmap &) = delete;
    ~Mmap();

    // A started mmap over [addr, addr + len) of this process, registered with `devices`, granting
    // `permissions` (a mask of enum doca_access_flag).
    static Result<Mmap> create_local(void *addr, size_t len, std::initializer_list<doca_dev *> devices,
                                     uint32_t permissions);
    // An mmap over another process's memory, from a doca_mmap_export_pci descriptor.
    static Result<Mmap> import(std::span<const uint8_t> descriptor, doca_dev *dev);

    // The PCI export descriptor for dev; owned by the mmap and valid until it stops.
    Result<std::span<const uint8_t>> export_pci(doca_dev *dev);

    // The engines' path to the bytes (reaches the exporter's pages for an imported mmap).
    Status read(const void *addr, void *dst, size_t len) const;
    Status write(void *addr, const void *src, size_t len);

    doca_mmap *get() const { return mmap_; }
    explicit operator bool() const { return mmap_ != nullptr; }
    uint32_t num_bufs() const;

    // Destroys now (implicitly stopping, revoking exports); NOT_PERMITTED while bufs point in.
    Status destroy();

  private:
    doca_mmap *mmap_ = nullptr;
};

} // namespace skiff::core
