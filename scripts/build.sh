#!/usr/bin/env bash
# Configures and builds one flavour of skiff.
#   scripts/build.sh [release|debug|asan|arm64|fuzz]   (default: release)
# Build folders: build/ (release), build-debug/, build-asan/ (clang-14, ASan + UBSan, every library
# instrumented for libFuzzer: the whole test suite and the fuzz harnesses of tests/fuzz, which
# scripts/fuzz.sh runs; "fuzz" is another name for it), build-arm64/ (aarch64 cross build for
# BlueField's Arm cores; scripts/test-arm64.sh runs its tests under qemu-user).
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
target=() # everything, unless the flavour names its targets
case "$flavour" in
  # Test code at -O0, the command-line files and the control plane (config/, live management, the
  # programs' own files) at -O1 (cmake/compile_levels.cmake): the data path keeps -O2; the test
  # sources compile in about 60 % of the time, the control plane's in about three quarters.
  # Debug info is -g1 (line tables and function names: backtraces, perf and sanitizer-style
  # reports still name functions, files and lines), a quarter less compile time per product
  # file than -g; build-debug/ (scripts/build.sh debug) is the one to step through in gdb.
  release) dir=build;       args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKIFF_TEST_OPTIMIZE=-O0
                                  -DSKIFF_COMMAND_LINE_OPTIMIZE=-O1 -DSKIFF_CONTROL_PLANE_OPTIMIZE=-O1
                                  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG") ;;
  debug)   dir=build-debug; args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  # Benchmarks and debug info off: CI builds this flavour from a cold cache on 2 cores and only
  # runs its tests (-g costs about a third of the compile time); -O2 as in the release flavour.
  # The tests stay at -O2 here: this is the stage that runs the whole suite optimised.
  # clang-14 cross-compiles it (SKIFF_CROSS_COMPILER=gcc for the cross g++) with precompiled
  # headers for the libraries and the tests: together about half the cross g++'s time per test
  # source, and 45 % less for the libraries' (cmake/toolchain-aarch64-linux-gnu.cmake,
  # cmake/precompiled_headers.cmake).
  arm64)   dir=build-arm64; args=(-DCMAKE_BUILD_TYPE=Release -DSKIFF_BUILD_BENCH=OFF -DSKIFF_PCH=ON
                                  "-DSKIFF_CROSS_COMPILER=${SKIFF_CROSS_COMPILER:-clang}"
                                  -DSKIFF_COMMAND_LINE_OPTIMIZE=-O1 -DSKIFF_CONTROL_PLANE_OPTIMIZE=-O1
                                  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
                                  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake)
           scripts/install-deps-arm64.sh >&2 ;;
  # One clang build for the sanitizers and the fuzzers (CI builds it once, not a gcc ASan build and
  # a clang fuzz build). -O1 -gline-tables-only: libFuzzer's recommended trade between executions
  # per second and the sanitizers' reach, and line numbers in every report at a fraction of -g's
  # compile time; the tests run faster at -O1 too. Asserts stay on (Debug: no NDEBUG).
  # Test code and command-line files at -O0 (half the compile time under the sanitizers); the
  # libraries and the harnesses keep -O1. Precompiled headers for the tests (a third less again)
  # and the libraries (30 % less; cmake/precompiled_headers.cmake).
  # "fuzz" is the same build (same folder), limited to the harnesses (scripts/fuzz.sh).
  asan|fuzz)
           dir=build-asan;  args=(-DCMAKE_BUILD_TYPE=Debug -DSKIFF_FUZZ=ON -DSKIFF_BUILD_BENCH=OFF -DSKIFF_PCH=ON
                                  -DSKIFF_TEST_OPTIMIZE=-O0 -DSKIFF_COMMAND_LINE_OPTIMIZE=-O0
                                  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
                                  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only")
           if [ "$flavour" = fuzz ]; then target=(--target skiff-fuzzers); fi ;;
  *) echo "usage: $0 [release|debug|asan|arm64|fuzz]" >&2; exit 2 ;;
esac

# SKIFF_TEST_MODULES: which tests/<module> test binaries to build (a ;-list; default all of them).
# scripts/test.sh builds integration;perf only in the release stage.
args+=("-DSKIFF_TEST_MODULES=${SKIFF_TEST_MODULES:-core;nvmeof;dataplane;config;integration;perf}")
jobs="${SKIFF_JOBS:-$(nproc)}"
# ccache (when installed) makes rebuilds and other checkouts on the same machine cheap; paths are
# taken relative to the checkout so clones and worktrees share hits.
if command -v ccache >/dev/null; then
  # pch_defines,time_macros: what ccache needs to cache compiles that use a precompiled header;
  # include_file_mtime,include_file_ctime: the header is compiled moments before the sources that
  # use it, and ccache would otherwise refuse to cache a compile whose input is that new.
  export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# A folder configured with another compiler (build-asan/ by the gcc ASan build of earlier versions,
# build-arm64/ by the cross g++): CMake cannot change the compiler of a configured folder, so
# that folder starts over.
want_cc=""
case "$dir" in
  build-asan) want_cc=clang ;;
  build-arm64) [ "${SKIFF_CROSS_COMPILER:-clang}" = clang ] && want_cc=clang || want_cc=aarch64-linux-gnu-g ;;
esac
if [ -n "$want_cc" ] && [ -f "$dir/CMakeCache.txt" ] && ! grep -q "^CMAKE_CXX_COMPILER:.*$want_cc" "$dir/CMakeCache.txt"; then
  echo "build.sh: $dir/ was configured with another compiler; configuring it again" >&2
  rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
fi
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
# The build's own output goes to stderr: callers take the folder from the last line of stdout
# (dir=$(scripts/build.sh ...)), and a compile error must still reach the log.
cmake --build "$dir" -j "$jobs" "${target[@]}" >&2
echo "$dir"
