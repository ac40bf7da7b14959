// Capability answers for contexts and mmaps (dev_caps.hpp): what a device of the topology can do.
#include "dev/dev_caps.hpp"

#include "dev/device.hpp"

namespace skiff::core {

bool devinfo_has_cap(const doca_devinfo *devinfo, DevCap cap) {
    return devinfo != nullptr && devinfo->desc.has_cap(cap);
}

bool dev_has_cap(const doca_dev *dev, DevCap cap) {
    return dev != nullptr && dev->info.desc.has_cap(cap);
}

} // namespace skiff::core
