// Device capabilities that contexts check before accepting a device. Declared here so that every
// module asks the same question; implemented by the device module (core/src/dev).
#pragma once

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

} // namespace skiff::core
