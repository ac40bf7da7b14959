// The local device list and the typed property getters of doca_devinfo.
#include <doca_dev.h>

#include "dev/device.hpp"
#include "dev/pci_addr.hpp"

#include <skiff/core/log.hpp>

#include <cstring>
#include <new>

using skiff::core::dev::DeviceDesc;

namespace skiff::core::dev {

namespace {
auto logger() {
    return skiff::log::get("dev");
}
} // namespace

doca_error_t copy_string_property(const std::string &value, char *out, uint32_t size, const char *what) {
    if (out == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (value.size() + 1 > size) {
        logger()->error("{} \"{}\" needs a buffer of {} bytes, got {}", what, value, value.size() + 1, size);
        return DOCA_ERROR_INVALID_VALUE;
    }
    std::memcpy(out, value.c_str(), value.size() + 1);
    return DOCA_SUCCESS;
}

} // namespace skiff::core::dev

extern "C" {

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs) {
    if (dev_list == nullptr || nb_devs == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto topo = skiff::core::dev::load_topology();
    if (!topo) {
        skiff::log::get("dev")->error("cannot list devices: {}", topo.error().message);
        return topo.error().code;
    }
    std::vector<DeviceDesc> devices = topo->local();
    for (auto &d : skiff::core::dev::rdma_devices(topo->side)) devices.push_back(std::move(d));

    // A NULL-terminated array of pointers; the entries are snapshots owned by the list.
    auto **list = new (std::nothrow) doca_devinfo *[devices.size() + 1];
    if (list == nullptr) return DOCA_ERROR_NO_MEMORY;
    for (size_t i = 0; i < devices.size(); ++i) list[i] = new doca_devinfo{std::move(devices[i])};
    list[devices.size()] = nullptr;
    *dev_list = list;
    *nb_devs = static_cast<uint32_t>(devices.size());
    skiff::log::get("dev")->debug("listed {} {}-side device(s)", devices.size(),
                                  skiff::core::dev::side_name(topo->side));
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list) {
    if (dev_list == nullptr) return DOCA_ERROR_INVALID_VALUE;
    // Opened devices hold their own copy of the devinfo, so every entry can go.
    for (doca_devinfo **p = dev_list; *p != nullptr; ++p) delete *p;
    delete[] dev_list;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str) {
    if (devinfo == nullptr || pci_addr_str == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (devinfo->desc.pci_addr.empty()) {
        skiff::log::get("dev")->error("device {} is not a PCI function (a software rdma device)",
                                      devinfo->desc.name);
        return DOCA_ERROR_OPERATING_SYSTEM;
    }
    return skiff::core::dev::copy_string_property(devinfo->desc.pci_addr, pci_addr_str,
                                                  DOCA_DEVINFO_PCI_ADDR_SIZE, "PCI address");
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
                                            uint8_t *is_equal) {
    if (devinfo == nullptr || pci_addr_str == nullptr || is_equal == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto norm = skiff::core::dev::normalize_pci_addr(pci_addr_str);
    if (!norm) {
        skiff::log::get("dev")->error("\"{}\" is not a PCI address; expected \"dddd:bb:dd.f\" or \"bb:dd.f\"",
                                      pci_addr_str);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *is_equal = (*norm == devinfo->desc.pci_addr) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
                                        uint32_t size) {
    if (devinfo == nullptr || ipv4_addr == nullptr || size < DOCA_DEVINFO_IPV4_ADDR_SIZE)
        return DOCA_ERROR_INVALID_VALUE;
    if (!devinfo->desc.ipv4) return DOCA_ERROR_NOT_FOUND;
    std::memcpy(ipv4_addr, devinfo->desc.ipv4->data(), DOCA_DEVINFO_IPV4_ADDR_SIZE);
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
                                        uint32_t size) {
    if (devinfo == nullptr || ipv6_addr == nullptr || size < DOCA_DEVINFO_IPV6_ADDR_SIZE)
        return DOCA_ERROR_INVALID_VALUE;
    return DOCA_ERROR_NOT_FOUND; // no emulated function carries an IPv6 address
}

doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr, uint32_t size) {
    if (devinfo == nullptr || mac_addr == nullptr || size < DOCA_DEVINFO_MAC_ADDR_SIZE)
        return DOCA_ERROR_INVALID_VALUE;
    if (!devinfo->desc.mac) return DOCA_ERROR_NOT_SUPPORTED;
    std::memcpy(mac_addr, devinfo->desc.mac->data(), DOCA_DEVINFO_MAC_ADDR_SIZE);
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
                                            enum doca_pci_func_type *pci_func_type) {
    if (devinfo == nullptr || pci_func_type == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *pci_func_type = devinfo->desc.func_type;
    return DOCA_SUCCESS;
}

// Only a sub function has an SF index; NVIDIA's samples ask only after the type said SF.
doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index) {
    if (devinfo == nullptr || sf_index == nullptr) return DOCA_ERROR_INVALID_VALUE;
    if (devinfo->desc.func_type != DOCA_PCI_FUNC_TYPE_SF) {
        skiff::log::get("dev")->debug("doca_devinfo_get_sf_index: {} is not a sub function",
                                      devinfo->desc.name);
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    *sf_index = devinfo->desc.sf_index;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
                                         uint32_t size) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::dev::copy_string_property(devinfo->desc.iface_name, iface_name, size,
                                                  "interface name");
}

doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
                                         uint32_t size) {
    if (devinfo == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return skiff::core::dev::copy_string_property(devinfo->desc.ibdev_name, ibdev_name, size,
                                                  "IB device name");
}

doca_error_t doca_devinfo_get_lid(const struct doca_devinfo *devinfo, uint16_t *lid) {
    if (devinfo == nullptr || lid == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return DOCA_ERROR_NOT_SUPPORTED; // no InfiniBand link layer here
}

doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
                                                           uint8_t *is_hotplug_manager) {
    if (devinfo == nullptr || is_hotplug_manager == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *is_hotplug_manager = 0;
    return DOCA_SUCCESS;
}

} // extern "C"
