// C++ handles for devices: capability questions, and an opened doca_dev that closes itself.
// Declare handles in dependency order (Device, then Mmap, then inventories, then bufs) so that
// destruction releases bufs first and devices last.
#pragma once

#include <skiff/core/status.hpp>

#include <string>
#include <string_view>
#include <utility>

struct doca_devinfo;
struct doca_dev;

namespace skiff::core {

enum class DevCap {
    dma_memcpy,           // the (emulated) DMA engine can run memcpy tasks on this device
    mmap_export_pci,      // host function: doca_mmap_export_pci
    mmap_from_export_pci, // DPU PF: doca_mmap_create_from_export of a PCI export
    rdma,                 // a real rdma-core device stands behind it
    dpa,                  // the (emulated) DPA can run on it
};

bool devinfo_has_cap(const doca_devinfo *devinfo, DevCap cap);
bool dev_has_cap(const doca_dev *dev, DevCap cap);

const char *dev_cap_name(DevCap cap);

// An opened local device of this process's side (SKIFF_SIDE / topology). Move-only; closes on
// destruction (the last close of a device still used by an mmap is refused and logged).
class Device {
  public:
    Device() = default;
    explicit Device(doca_dev *dev) : dev_(dev) {}
    Device(Device &&other) noexcept : dev_(std::exchange(other.dev_, nullptr)) {}
    Device &operator=(Device &&other) noexcept;
    Device(const Device &) = delete;
    Device &operator=(const Device &) = delete;
    ~Device();

    // The first device whose PCI address is pci ("0000:03:00.0" or "03:00.0").
    static Result<Device> open_by_pci(std::string_view pci);
    // The device whose network interface is iface ("p0", "ens1f0").
    static Result<Device> open_by_iface(std::string_view iface);
    // The first device that has cap.
    static Result<Device> open_with_cap(DevCap cap);

    doca_dev *get() const { return dev_; }
    doca_devinfo *info() const;
    explicit operator bool() const { return dev_ != nullptr; }
    bool has_cap(DevCap cap) const { return dev_has_cap(dev_, cap); }
    std::string pci_addr() const;
    std::string iface_name() const;

    // Closes now and reports the result (IN_USE while an mmap still holds the device).
    Status close();

  private:
    doca_dev *dev_ = nullptr;
};

} // namespace skiff::core
