// Device capabilities that contexts check before accepting a device. Declared here so that every
// module asks the same question; implemented by the device module (core/src/dev). The declarations
// (enum class DevCap, devinfo_has_cap, dev_has_cap) live in the public <skiff/core/device.hpp> so
// that applications can ask the same question when they pick a device.
#pragma once

#include <skiff/core/device.hpp>
