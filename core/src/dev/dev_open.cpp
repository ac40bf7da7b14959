// doca_dev_open / doca_dev_close: opens are counted per device, the last close releases it.
#include <doca_dev.h>

#include "dev/device.hpp"
#include "dev/registry.hpp"

#include <skiff/core/log.hpp>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace skiff::core::dev {

Registry &registry() {
    static Registry r;
    return r;
}

uint32_t max_open_devices() {
    // The emulator's limit (DOCA does not publish one); SKIFF_MAX_OPEN_DEVICES overrides it.
    constexpr uint32_t default_limit = 64;
    const char *env = std::getenv("SKIFF_MAX_OPEN_DEVICES");
    if (env == nullptr || *env == '\0') return default_limit;
    char *end = nullptr;
    unsigned long v = std::strtoul(env, &end, 10);
    return (*end == '\0' && v > 0 && v < UINT32_MAX) ? static_cast<uint32_t>(v) : default_limit;
}

void dev_hold(doca_dev *dev) {
    dev->users.fetch_add(1, std::memory_order_relaxed);
}
void dev_release(doca_dev *dev) {
    dev->users.fetch_sub(1, std::memory_order_relaxed);
}

} // namespace skiff::core::dev

extern "C" {

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev) {
    if (devinfo == nullptr || dev == nullptr) return DOCA_ERROR_INVALID_VALUE;
    auto &reg = skiff::core::dev::registry();
    std::lock_guard lock(reg.mutex);
    const std::string key = devinfo->desc.identity();
    auto it = reg.devs.find(key);
    if (it != reg.devs.end()) {
        ++it->second->open_count;
        *dev = it->second;
        return DOCA_SUCCESS;
    }
    if (uint32_t limit = skiff::core::dev::max_open_devices(); reg.devs.size() >= limit) {
        skiff::log::get("dev")->error(
            "cannot open device {}: {} devices are open, the maximum (SKIFF_MAX_OPEN_DEVICES)",
            devinfo->desc.name, limit);
        return DOCA_ERROR_INITIALIZATION;
    }
    auto *d = new (std::nothrow) doca_dev{};
    if (d == nullptr) return DOCA_ERROR_NO_MEMORY;
    d->info = *devinfo; // the device keeps its own snapshot: the list may be destroyed
    d->open_count = 1;
    reg.devs.emplace(key, d);
    skiff::log::get("dev")->debug("opened device {} ({})", d->info.desc.name, d->info.desc.pci_addr);
    *dev = d;
    return DOCA_SUCCESS;
}

doca_error_t doca_dev_close(struct doca_dev *dev) {
    // Closing nothing is nothing to do (like free(NULL)): DOCA programs close unconditionally on
    // their cleanup paths, also when the open failed, and treat any error as a failure.
    if (dev == nullptr) return DOCA_SUCCESS;
    auto &reg = skiff::core::dev::registry();
    std::lock_guard lock(reg.mutex);
    // Checked without touching *dev: a device closed for the last time is freed.
    bool open = std::any_of(reg.devs.begin(), reg.devs.end(),
                            [dev](const auto &entry) { return entry.second == dev; });
    if (!open) {
        skiff::log::get("dev")->error("doca_dev_close: {} is not an open device (closed already?)",
                                      static_cast<void *>(dev));
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (dev->open_count > 1) {
        --dev->open_count;
        return DOCA_SUCCESS;
    }
    if (uint32_t users = dev->users.load(std::memory_order_relaxed); users != 0) {
        skiff::log::get("dev")->error("cannot close device {}: {} mmap(s) still use it; remove it from them "
                                      "(doca_mmap_rm_dev / doca_mmap_destroy) first",
                                      dev->info.desc.name, users);
        return DOCA_ERROR_IN_USE;
    }
    reg.devs.erase(dev->info.desc.identity());
    skiff::log::get("dev")->debug("closed device {}", dev->info.desc.name);
    delete dev;
    return DOCA_SUCCESS;
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev) {
    return dev == nullptr ? nullptr : const_cast<doca_devinfo *>(&dev->info);
}

} // extern "C"
