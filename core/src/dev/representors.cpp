// Representor lists, obtained only through a DPU PF (the parent), and opened representors.
#include <doca_dev.h>

#include "dev/device.hpp"
#include "dev/pci_addr.hpp"
#include "dev/registry.hpp"

#include <skiff/core/log.hpp>

#include <new>

namespace skiff::core::dev {

namespace {

constexpr int known_filters = DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED;

bool matches(const RepDesc &rep, int filter) {
    if (filter == DOCA_DEVINFO_REP_FILTER_ALL) return true;
    if ((filter & DOCA_DEVINFO_REP_FILTER_NET) && rep.kind == RepKind::net) return true;
    if ((filter & DOCA_DEVINFO_REP_FILTER_EMULATED) && rep.kind == RepKind::emulated) return true;
    return false;
}

bool has_reps(const DeviceDesc &d) {
    return d.side == Side::dpu && !d.reps.empty();
}

} // namespace

bool dev_manages_function(const doca_dev *dev, std::string_view pci_addr) {
    for (const auto &rep : desc_of(dev).reps)
        if (rep.pci_addr == pci_addr) return true;
    return false;
}

} // namespace skiff::core::dev

using namespace skiff::core::dev;

extern "C" {

doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
                                          struct doca_devinfo_rep ***dev_list_rep, uint32_t *nb_devs_rep) {
    if (dev == nullptr || dev_list_rep == nullptr || nb_devs_rep == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto log = skiff::log::get("dev");
    if ((filter & ~known_filters) != 0) {
        log->error(
            "representor filter {:#x} has unknown bits; expected a mix of DOCA_DEVINFO_REP_FILTER_NET and "
            "DOCA_DEVINFO_REP_FILTER_EMULATED, or DOCA_DEVINFO_REP_FILTER_ALL",
            filter);
        return DOCA_ERROR_INVALID_VALUE;
    }
    const DeviceDesc &parent = desc_of(dev);
    if (!has_reps(parent)) {
        log->error("device {} ({}-side) manages no representors; list them through a DPU PF such as p0",
                   parent.name, side_name(parent.side));
        return DOCA_ERROR_NOT_SUPPORTED;
    }
    std::vector<doca_devinfo_rep *> found;
    for (const auto &rep : parent.reps)
        if (matches(rep, filter)) found.push_back(new doca_devinfo_rep{rep, parent.identity()});
    // The entries are copies: the list stays valid after the parent device is closed.
    auto **list = new (std::nothrow) doca_devinfo_rep *[found.size() + 1];
    if (list == nullptr) {
        for (auto *r : found) delete r;
        return DOCA_ERROR_NO_MEMORY;
    }
    for (size_t i = 0; i < found.size(); ++i) list[i] = found[i];
    list[found.size()] = nullptr;
    *dev_list_rep = list;
    *nb_devs_rep = static_cast<uint32_t>(found.size());
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep) {
    if (dev_list_rep == nullptr) return DOCA_ERROR_INVALID_VALUE;
    for (doca_devinfo_rep **p = dev_list_rep; *p != nullptr; ++p) delete *p;
    delete[] dev_list_rep;
    return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep) {
    if (devinfo == nullptr || dev_rep == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto &reg = registry();
    std::lock_guard lock(reg.mutex);
    const std::string key = devinfo->parent_identity + "/" + devinfo->desc.name;
    if (auto it = reg.reps.find(key); it != reg.reps.end()) {
        ++it->second->open_count;
        *dev_rep = it->second;
        return DOCA_SUCCESS;
    }
    auto *r = new (std::nothrow) doca_dev_rep{*devinfo, 1};
    if (r == nullptr) return DOCA_ERROR_NO_MEMORY;
    reg.reps.emplace(key, r);
    *dev_rep = r;
    return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev) {
    if (dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto &reg = registry();
    std::lock_guard lock(reg.mutex);
    if (--dev->open_count > 0) return DOCA_SUCCESS;
    reg.reps.erase(dev->info.parent_identity + "/" + dev->info.desc.name);
    delete dev;
    return DOCA_SUCCESS;
}

struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep) {
    return dev_rep == nullptr ? nullptr : &dev_rep->info;
}

doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
                                       uint32_t size) {
    if (devinfo_rep == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return copy_string_property(devinfo_rep->desc.vuid, rep_vuid, size, "VUID");
}

doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
                                               char *pci_addr_str) {
    if (devinfo_rep == nullptr) return DOCA_ERROR_INVALID_VALUE;
    return copy_string_property(devinfo_rep->desc.pci_addr, pci_addr_str, DOCA_DEVINFO_REP_PCI_ADDR_SIZE,
                                "PCI address");
}

doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
                                                enum doca_pci_func_type *pci_func_type) {
    if (devinfo_rep == nullptr || pci_func_type == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *pci_func_type = devinfo_rep->desc.func_type;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
                                             uint8_t *is_hotplug) {
    if (devinfo_rep == nullptr || is_hotplug == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *is_hotplug = devinfo_rep->desc.hotplug ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
                                                const char *pci_addr_str, uint8_t *is_equal) {
    if (devinfo_rep == nullptr || pci_addr_str == nullptr || is_equal == nullptr)
        return DOCA_ERROR_INVALID_VALUE;
    auto norm = normalize_pci_addr(pci_addr_str);
    if (!norm) {
        skiff::log::get("dev")->error("\"{}\" is not a PCI address; expected \"dddd:bb:dd.f\" or \"bb:dd.f\"",
                                      pci_addr_str);
        return DOCA_ERROR_INVALID_VALUE;
    }
    *is_equal = (*norm == devinfo_rep->desc.pci_addr) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_all_supported) {
    if (devinfo == nullptr || filter_all_supported == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *filter_all_supported = has_reps(devinfo->desc) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
                                                          uint8_t *filter_net_supported) {
    if (devinfo == nullptr || filter_net_supported == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *filter_net_supported = has_reps(devinfo->desc) ? 1 : 0;
    return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
                                                               uint8_t *filter_emulated_supported) {
    if (devinfo == nullptr || filter_emulated_supported == nullptr) return DOCA_ERROR_INVALID_VALUE;
    *filter_emulated_supported = has_reps(devinfo->desc) ? 1 : 0;
    return DOCA_SUCCESS;
}

} // extern "C"
