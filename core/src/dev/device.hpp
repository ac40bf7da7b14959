// The objects behind doca_devinfo, doca_dev, doca_devinfo_rep and doca_dev_rep, and what the rest of
// the core may ask about an opened device.
#pragma once

#include "dev/topology.hpp"

#include <atomic>
#include <cstdint>
#include <string_view>

// A snapshot of one local device, owned by a devinfo list or by an opened doca_dev.
struct doca_devinfo {
    skiff::core::dev::DeviceDesc desc;
};

// An opened local device. Shared by every opener of the same device (open_count), kept alive
// while mmaps still use it (users).
struct doca_dev {
    doca_devinfo info;
    uint32_t open_count = 0;        // guarded by the device registry's mutex
    std::atomic<uint32_t> users{0}; // mmaps that hold the device (add_dev / create_from_export)
};

// A snapshot of one representor, with the parent PF it was listed through.
struct doca_devinfo_rep {
    skiff::core::dev::RepDesc desc;
    std::string parent_identity;
};

struct doca_dev_rep {
    doca_devinfo_rep info;
    uint32_t open_count = 0; // guarded by the device registry's mutex
};

namespace skiff::core::dev {

inline const DeviceDesc &desc_of(const doca_dev *dev) {
    return dev->info.desc;
}

// True when dev is a DPU PF that manages a representor of the function at pci_addr (normalized):
// the pairing rule for importing a PCI export.
bool dev_manages_function(const doca_dev *dev, std::string_view pci_addr);

// An mmap starts / stops holding dev; the last doca_dev_close is refused (IN_USE) while held.
void dev_hold(doca_dev *dev);
void dev_release(doca_dev *dev);

// Copies a string property into a caller buffer of `size` bytes (NUL included).
doca_error_t copy_string_property(const std::string &value, char *out, uint32_t size, const char *what);

} // namespace skiff::core::dev
