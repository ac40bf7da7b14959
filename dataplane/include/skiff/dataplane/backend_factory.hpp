// Configured backends -> block devices. One table entry per backend kind (the config side of a
// kind lives in config/src/backend_kinds.cpp): adding a kind is one entry in each.
#pragma once

#include "skiff/config/config.hpp"
#include "skiff/core/status.hpp"
#include "skiff/nvmeof/target/block_device.hpp"

#include <memory>

namespace skiff::dataplane {

// Opens or allocates the device a backend describes. The error names the backend.
Result<std::shared_ptr<nvmeof::target::BlockDevice>> make_backend(const config::BackendConfig &backend);

} // namespace skiff::dataplane
