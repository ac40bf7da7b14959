// Real rdma-core devices (rxe, mlx5, ...) listed next to the emulated functions, with the RDMA
// capability and their IB device name. Compiled to an empty list without SKIFF_HAVE_RDMA.
#include "dev/topology.hpp"

#include "dev/pci_addr.hpp"

#include <skiff/core/log.hpp>

#ifdef SKIFF_HAVE_RDMA
#include <infiniband/verbs.h>

#include <filesystem>
#include <fstream>
#endif

namespace skiff::core::dev {

#ifdef SKIFF_HAVE_RDMA
namespace {

namespace fs = std::filesystem;

// The PCI address behind /sys/class/infiniband/<name>/device, or "" for a software device (rxe).
std::string sysfs_pci_addr(const std::string &ibdev) {
    std::error_code ec;
    fs::path target = fs::canonical("/sys/class/infiniband/" + ibdev + "/device", ec);
    if (ec) return "";
    auto norm = normalize_pci_addr(target.filename().string());
    return norm ? *norm : "";
}

// The first network interface of the device (for rxe: its parent netdev).
std::string sysfs_iface(const std::string &ibdev) {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator("/sys/class/infiniband/" + ibdev + "/device/net", ec))
        return entry.path().filename().string();
    std::string parent;
    std::ifstream in("/sys/class/infiniband/" + ibdev + "/parent");
    if (in >> parent) return parent;
    return "";
}

} // namespace

std::vector<DeviceDesc> rdma_devices(Side side) {
    std::vector<DeviceDesc> out;
    int n = 0;
    ibv_device **list = ibv_get_device_list(&n);
    if (list == nullptr) return out; // no rdma-core devices (or no kernel support): nothing to add
    for (int i = 0; i < n; ++i) {
        DeviceDesc d;
        d.name = ibv_get_device_name(list[i]);
        d.side = side;
        d.ibdev_name = d.name;
        d.pci_addr = sysfs_pci_addr(d.name);
        d.iface_name = sysfs_iface(d.name);
        d.vuid = "SKIFF-rdma-" + d.name;
        d.caps = cap_bit(DevCap::rdma);
        out.push_back(std::move(d));
    }
    ibv_free_device_list(list);
    if (!out.empty()) skiff::log::get("dev")->debug("found {} rdma-core device(s)", out.size());
    return out;
}
#else
std::vector<DeviceDesc> rdma_devices(Side) {
    return {};
}
#endif

} // namespace skiff::core::dev
