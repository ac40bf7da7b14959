# Precompiled headers for the two clang flavours CI builds from a cold cache (scripts/build.sh
# asan and arm64). Measured with clang-14, paired, per file: test sources 36 % less compile time
# under ASan + UBSan and 27 % less at -O2 for aarch64 (gtest, gmock, nlohmann/json); product
# sources about 20 % less under ASan and 30 % less for aarch64 (the standard containers and
# spdlog with fmt, which nearly every file includes through skiff/core/log.hpp). The gcc flavours
# (release, the packages) compile without them: there every file proves it includes what it uses,
# and GCC's compiled header is not reproducible, so ccache missed on it every time.
# With -fno-pch-timestamp clang's header is the same bytes on every build, and ccache hits on a
# rebuild of the same folder (a clone elsewhere misses: the header records absolute paths).
option(SKIFF_PCH "Precompile the common headers of the libraries and the test binaries" OFF)

# The headers nearly every product source parses. nlohmann/json is not among them: in the files
# that use it the time goes to instantiating its templates, and the others would pay to load it.
set(SKIFF_PRODUCT_PCH_HEADERS
  <algorithm> <array> <atomic> <chrono> <cstdint> <cstring> <functional> <map> <memory> <mutex>
  <optional> <string> <string_view> <thread> <unordered_map> <utility> <vector> <spdlog/spdlog.h>)

# skiff_precompile_headers(<target> <header>...): precompile these headers for every C++ source of
# the target, when SKIFF_PCH is on.
function(skiff_precompile_headers target)
  if(NOT SKIFF_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${ARGN})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
  endif()
  # GCC 12 at -O2 with a precompiled header inlines std::string's operator+ and copies
  # differently, and then reports the memcpy-range family (-Warray-bounds, -Wstringop-overflow,
  # -Wstringop-overread, -Wrestrict) on libstdc++'s own code: known false positives of GCC 12's
  # std::string. They stay warnings here; the release build compiles the same sources without
  # the header, where they are errors.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-error=array-bounds -Wno-error=stringop-overflow
                                             -Wno-error=stringop-overread -Wno-error=restrict)
  endif()
endfunction()

# skiff_skip_precompiled_headers(<flags> <file>...): files compiled at -O0 in a target whose
# header was compiled optimised (or the other way round) cannot use it (clang: "__OPTIMIZE__
# predefined macro was enabled in PCH file but is currently disabled").
function(skiff_skip_precompiled_headers flags)
  if(SKIFF_PCH AND flags MATCHES "-O0")
    set_property(SOURCE ${ARGN} APPEND PROPERTY SKIP_PRECOMPILE_HEADERS ON)
  endif()
endfunction()
