// Where the tests find the build's programs and the source tree's files.
//
// These paths are compiled into one small library (build_paths.cpp), not into every test source:
// a path on a test source's command line (-DSKIFF_BIN_DIR="/tmp/clone-XYZ/build/bin") makes
// ccache miss on every test source of every new clone, CI's included.
#pragma once

#include <string>

namespace skiff::test {

// The folder of the build's programs (skiff-target, skiff-ctl, the test helpers), no trailing '/'.
const std::string &bin_dir();
// The top of the source tree, no trailing '/'.
const std::string &source_dir();

} // namespace skiff::test
