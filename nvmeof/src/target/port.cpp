#include "skiff/nvmeof/target/port.hpp"

#include <algorithm>

namespace skiff::nvmeof::target {

bool Port::lists(const std::string &nqn) const {
    if (!subsystems) return true;
    return std::find(subsystems->begin(), subsystems->end(), nqn) != subsystems->end();
}

} // namespace skiff::nvmeof::target
