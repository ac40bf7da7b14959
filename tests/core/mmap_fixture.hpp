// Shared helpers for the device and memory tests: environment overrides and device opening.
#pragma once

#include <doca_dev.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace skiff::test {

// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnv {
  public:
    ScopedEnv(const char *name, const std::string &value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }

  private:
    const char *name_;
    std::optional<std::string> old_;
};

// Opens the first device of `side` whose interface name is `iface` (the emulated topology names
// host functions ens1f0, ens1f0v0, ... and DPU PFs p0, p1). nullptr when absent.
inline doca_dev *open_by_iface(const char *side, const std::string &iface) {
    ScopedEnv env("SKIFF_SIDE", side);
    doca_devinfo **list = nullptr;
    uint32_t n = 0;
    if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS) return nullptr;
    doca_dev *dev = nullptr;
    for (uint32_t i = 0; i < n && dev == nullptr; ++i) {
        char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
        if (doca_devinfo_get_iface_name(list[i], name, sizeof(name)) == DOCA_SUCCESS && iface == name) {
            EXPECT_EQ(doca_dev_open(list[i], &dev), DOCA_SUCCESS);
        }
    }
    doca_devinfo_destroy_list(list);
    return dev;
}

inline doca_dev *open_host_pf0() {
    return open_by_iface("host", "ens1f0");
}
inline doca_dev *open_dpu_p0() {
    return open_by_iface("dpu", "p0");
}
inline doca_dev *open_dpu_p1() {
    return open_by_iface("dpu", "p1");
}

} // namespace skiff::test
