#!/usr/bin/env bash
# Checks that a program builds and runs against an installed skiff, seeing nothing of this
# source tree: tests/install/dma_copy.c is copied into an empty folder and compiled
#   1. with `cc dma_copy.c $(pkg-config --cflags --libs skiff-doca)`, and
#   2. as a CMake project that only says find_package(skiff) and links skiff::doca;
# each program must copy its buffers with DMA and find every byte in place.
#
#   tests/install/run.sh [--prefix BUILD_DIR]   install BUILD_DIR (default build/) into a temporary
#                                               prefix with `cmake --install` (what CI runs)
#   tests/install/run.sh --deb DEB_DIR          dpkg -i the .debs of DEB_DIR (e.g. dist/amd64,
#                                               from scripts/package.sh); needs root, changes
#                                               this machine: for disposable machines and VMs
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

mode="${1:---prefix}"
from="${2:-}"
work=$(mktemp -d /tmp/skiff-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

case "$mode" in
  --prefix)
    build="${from:-$root/build}"
    [ -f "$build/CMakeCache.txt" ] || { echo "install test: $build is not a build folder (scripts/build.sh release)" >&2; exit 2; }
    prefix="$work/prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    pc=$(dirname "$(find "$prefix" -name skiff-doca.pc | head -n 1)")
    export PKG_CONFIG_PATH="$pc"
    cmake_prefix=(-DCMAKE_PREFIX_PATH="$prefix")
    echo "install test: installed $build into $prefix"
    # The installed programs find libskiff-core through their RUNPATH, and the installed default
    # configuration is valid.
    "$prefix/bin/skiff-target" --check-config "$prefix/etc/skiff/target.json" >/dev/null
    "$prefix/bin/skiff-ctl" --help >/dev/null
    ;;
  --deb)
    dir="${from:-$root/dist/amd64}"
    ls "$dir"/*.deb >/dev/null || { echo "install test: no .deb in $dir (scripts/package.sh)" >&2; exit 2; }
    dpkg -i "$dir"/libskiff-core_*.deb "$dir"/libskiff-core-dev_*.deb >/dev/null
    cmake_prefix=()
    [ ! -f "$dir"/skiff_*.deb ] || { dpkg -i "$dir"/skiff_*.deb >/dev/null && skiff-target --check-config /etc/skiff/target.json >/dev/null; }
    echo "install test: installed $(dpkg-query -W -f='${Package} ${Version}, ' libskiff-core libskiff-core-dev)"
    ;;
  *) sed -n 2,14p "$0" >&2; exit 2 ;;
esac

# 1. pkg-config only.
mkdir "$work/pc"
cp "$here/dma_copy.c" "$work/pc/"
flags=$(pkg-config --cflags --libs skiff-doca)
echo "install test: pkg-config --cflags --libs skiff-doca -> $flags"
(cd "$work/pc" && cc -std=c11 -Wall -Werror dma_copy.c $flags -o dma_copy)
libdir=$(pkg-config --variable=libdir skiff-doca)
# A temporary prefix is not on the loader's path; the packaged /usr/lib/<multiarch> is.
if [ "$mode" = --prefix ]; then run_env=(env LD_LIBRARY_PATH="$libdir"); else run_env=(); fi
"${run_env[@]}" "$work/pc/dma_copy"
if "${run_env[@]}" ldd "$work/pc/dma_copy" | grep -q "libskiff-core.so.0 => $root"; then
  echo "install test: the pkg-config program loads libskiff-core from the source tree" >&2
  exit 1
fi

# 2. find_package(skiff).
mkdir "$work/cm"
cp "$here/dma_copy.c" "$work/cm/"
cp "$here/CMakeLists.txt.in" "$work/cm/CMakeLists.txt"
cmake -S "$work/cm" -B "$work/cm/build" "${cmake_prefix[@]}" >/dev/null
cmake --build "$work/cm/build" >/dev/null
"$work/cm/build/dma_copy"
echo "install test: OK (pkg-config and find_package(skiff) builds both ran)"
