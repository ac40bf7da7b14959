// skiff::core::Device: opening a device by property or capability, closing on destruction.
#include <skiff/core/device.hpp>

#include <doca_dev.h>

#include <skiff/core/log.hpp>

#include <functional>

namespace skiff::core {

namespace {

// Opens the first listed device that satisfies `pick`; NOT_FOUND naming `what` otherwise.
Result<Device> open_first(const std::function<bool(doca_devinfo *)> &pick, const std::string &what) {
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    if (doca_error_t r = doca_devinfo_create_list(&list, &n); r != DOCA_SUCCESS)
        return make_error(r, "listing devices failed (check SKIFF_TOPOLOGY / SKIFF_SIDE)");
    doca_dev *dev = nullptr;
    doca_error_t r = DOCA_ERROR_NOT_FOUND;
    for (uint32_t i = 0; i < n; ++i)
        if (pick(list[i])) {
            r = doca_dev_open(list[i], &dev);
            break;
        }
    doca_devinfo_destroy_list(list);
    if (r == DOCA_ERROR_NOT_FOUND)
        return make_error(r, "no device " + what + " on this side among " + std::to_string(n) + " device(s)");
    if (r != DOCA_SUCCESS) return make_error(r, "opening the device " + what + " failed");
    return Device(dev);
}

} // namespace

const char *dev_cap_name(DevCap cap) {
    switch (cap) {
    case DevCap::dma_memcpy:
        return "dma_memcpy";
    case DevCap::mmap_export_pci:
        return "mmap_export_pci";
    case DevCap::mmap_from_export_pci:
        return "mmap_from_export_pci";
    case DevCap::rdma:
        return "rdma";
    case DevCap::dpa:
        return "dpa";
    }
    return "unknown";
}

Device &Device::operator=(Device &&other) noexcept {
    if (this != &other) {
        (void)close();
        dev_ = std::exchange(other.dev_, nullptr);
    }
    return *this;
}

Device::~Device() {
    if (Status s = close(); !s.ok()) skiff::log::get("dev")->error("{}", s.error().describe());
}

Result<Device> Device::open_by_pci(std::string_view pci) {
    std::string text(pci);
    return open_first(
        [&](doca_devinfo *info) {
            uint8_t eq = 0;
            return doca_devinfo_is_equal_pci_addr(info, text.c_str(), &eq) == DOCA_SUCCESS && eq == 1;
        },
        "at PCI address " + text);
}

Result<Device> Device::open_by_iface(std::string_view iface) {
    return open_first(
        [&](doca_devinfo *info) {
            char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
            return doca_devinfo_get_iface_name(info, name, sizeof(name)) == DOCA_SUCCESS && iface == name;
        },
        "with interface " + std::string(iface));
}

Result<Device> Device::open_with_cap(DevCap cap) {
    return open_first([&](doca_devinfo *info) { return devinfo_has_cap(info, cap); },
                      std::string("with capability ") + dev_cap_name(cap));
}

doca_devinfo *Device::info() const {
    return doca_dev_as_devinfo(dev_);
}

std::string Device::pci_addr() const {
    char buf[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";
    if (dev_ != nullptr) (void)doca_devinfo_get_pci_addr_str(info(), buf);
    return buf;
}

std::string Device::iface_name() const {
    char buf[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
    if (dev_ != nullptr) (void)doca_devinfo_get_iface_name(info(), buf, sizeof(buf));
    return buf;
}

Status Device::close() {
    if (dev_ == nullptr) return Status::success();
    doca_error_t r = doca_dev_close(dev_);
    if (r != DOCA_SUCCESS) return check(r, "closing device " + iface_name());
    dev_ = nullptr;
    return Status::success();
}

} // namespace skiff::core
