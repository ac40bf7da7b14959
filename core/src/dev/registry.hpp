// The opened devices of this process, so that opening the same device again returns the same
// handle. All device operations are thread-safe through this one mutex (opens are rare).
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

struct doca_dev;
struct doca_dev_rep;

namespace skiff::core::dev {

struct Registry {
    std::mutex mutex;
    std::unordered_map<std::string, doca_dev *> devs;     // by DeviceDesc::identity()
    std::unordered_map<std::string, doca_dev_rep *> reps; // by parent identity + "/" + rep name
};

Registry &registry();

} // namespace skiff::core::dev
