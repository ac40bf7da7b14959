#include "build_paths.hpp"

namespace skiff::test {

// SKIFF_BIN_DIR and SKIFF_SOURCE_DIR are defined for this file only (tests/CMakeLists.txt).
const std::string &bin_dir() {
    static const std::string dir = SKIFF_BIN_DIR;
    return dir;
}

const std::string &source_dir() {
    static const std::string dir = SKIFF_SOURCE_DIR;
    return dir;
}

} // namespace skiff::test
