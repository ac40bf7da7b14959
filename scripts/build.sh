#!/usr/bin/env bash
# Configures and builds one flavour of skiff.
#   scripts/build.sh [release|debug|asan|arm64|fuzz]   (default: release)
# Build folders: build/ (release), build-debug/, build-asan/ (ASan + UBSan), build-arm64/ (aarch64
# cross build for BlueField's Arm cores; scripts/test-arm64.sh runs its tests under qemu-user),
# build-fuzz/ (clang-14, libFuzzer + ASan + UBSan: only the libraries and the tests/fuzz harnesses;
# scripts/fuzz.sh runs them).
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
target=() # everything, unless the flavour names its targets
case "$flavour" in
  release) dir=build;       args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  debug)   dir=build-debug; args=(-DCMAKE_BUILD_TYPE=Debug) ;;
  asan)    dir=build-asan;  args=(-DCMAKE_BUILD_TYPE=Debug -DSKIFF_SANITIZE=ON -DSKIFF_BUILD_BENCH=OFF -DSKIFF_TEST_PCH=ON) ;;
  # Benchmarks and debug info off: CI builds this flavour from a cold cache on 2 cores and only
  # runs its tests (-g costs about a third of the compile time); -O2 as in the release flavour.
  arm64)   dir=build-arm64; args=(-DCMAKE_BUILD_TYPE=Release -DSKIFF_BUILD_BENCH=OFF -DSKIFF_TEST_PCH=ON
                                  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"
                                  -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake)
           scripts/install-deps-arm64.sh >&2 ;;
  # -O1: libFuzzer's recommended trade between executions per second and the sanitizers' reach.
  fuzz)    dir=build-fuzz;  args=(-DCMAKE_BUILD_TYPE=Debug -DSKIFF_FUZZ=ON -DSKIFF_BUILD_BENCH=OFF -DSKIFF_BUILD_TESTS=OFF
                                  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
                                  "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only")
           target=(--target skiff-fuzzers) ;;
  *) echo "usage: $0 [release|debug|asan|arm64|fuzz]" >&2; exit 2 ;;
esac

jobs="${SKIFF_JOBS:-$(nproc)}"
# ccache (when installed) makes rebuilds and other checkouts on the same machine cheap; paths are
# taken relative to the checkout so clones and worktrees share hits.
if command -v ccache >/dev/null; then
  # pch_defines,time_macros: what ccache needs to cache compiles that use a precompiled header.
  export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=pch_defines,time_macros
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
# The build's own output goes to stderr: callers take the folder from the last line of stdout
# (dir=$(scripts/build.sh ...)), and a compile error must still reach the log.
cmake --build "$dir" -j "$jobs" "${target[@]}" >&2
echo "$dir"
