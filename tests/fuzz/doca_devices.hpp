// The emulated DOCA devices the export harnesses use: the host PF (exports host memory) and the
// DPU port that manages its representor (imports PCI exports), opened by interface name as
// tests/core/mmap_fixture.hpp does.
#pragma once

#include <doca_dev.h>

#include <cstdlib>
#include <string>

namespace skiff::fuzz {

inline doca_dev *open_device(const char *side, const std::string &iface) {
    const char *old = std::getenv("SKIFF_SIDE");
    std::string saved = old ? old : "";
    setenv("SKIFF_SIDE", side, 1);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    doca_dev *dev = nullptr;
    if (doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS) {
        for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
            char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
            if (doca_devinfo_get_iface_name(list[i], name, sizeof(name)) == DOCA_SUCCESS && iface == name)
                (void)doca_dev_open(list[i], &dev);
        }
        doca_devinfo_destroy_list(list);
    }
    if (old)
        setenv("SKIFF_SIDE", saved.c_str(), 1);
    else
        unsetenv("SKIFF_SIDE");
    if (dev == nullptr) std::abort(); // the emulated inventory always has both
    return dev;
}

} // namespace skiff::fuzz
