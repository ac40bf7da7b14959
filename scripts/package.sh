#!/usr/bin/env bash
# Builds the Debian packages skiff, libskiff-core and libskiff-core-dev.
#   scripts/package.sh [amd64|arm64]   (default: this machine's architecture)
# This machine's architecture: a native release build in build-package/ (configured with prefix
# /usr, otherwise like scripts/build.sh release), dependencies from dpkg-shlibdeps.
# arm64 on an amd64 machine: the cross build in build-arm64/ (scripts/build.sh arm64), packaged
# with explicit Debian 12 dependencies since this machine's dpkg database has no arm64 libraries.
# The .debs land in dist/<arch>/; the last lines printed are their paths, one per line.
set -euo pipefail
cd "$(dirname "$0")/.."

native=$(dpkg --print-architecture)
arch="${1:-$native}"
case "$arch" in
  "$native")
    dir=build-package
    # The product's compile flags are the release flavour's (scripts/build.sh release), so that
    # after a release build every file comes from ccache (the lab's service test packages on every
    # CI run; the binaries are stripped into the .debs anyway: CPACK_STRIP_FILES).
    args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSKIFF_BUILD_TESTS=OFF -DSKIFF_BUILD_BENCH=OFF
          -DSKIFF_COMMAND_LINE_OPTIMIZE=-O1 -DSKIFF_CONTROL_PLANE_OPTIMIZE=-O1
          "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
    if command -v ccache >/dev/null; then
      export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
      args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -S . -B "$dir" -G Ninja "${args[@]}" -DCMAKE_INSTALL_PREFIX=/usr -DSKIFF_DEB_EXPLICIT_DEPENDS=OFF >/dev/null
    ;;
  arm64)
    dir=build-arm64
    [ -f "$dir/CMakeCache.txt" ] || scripts/build.sh arm64 >/dev/null
    cmake "$dir" -DCMAKE_INSTALL_PREFIX=/usr -DSKIFF_DEB_EXPLICIT_DEPENDS=ON >/dev/null
    ;;
  *) echo "usage: $0 [$native|arm64] (default: $native)" >&2; exit 2 ;;
esac

cmake --build "$dir" -j "${SKIFF_JOBS:-$(nproc)}" >/dev/null
rm -rf "$dir/packages"
(cd "$dir" && cpack -G DEB >/dev/null)

out="dist/$arch"
rm -rf "$out"
mkdir -p "$out"
cp "$dir"/packages/*.deb "$out/"
for deb in "$out"/*.deb; do
  pkg=$(dpkg-deb -f "$deb" Package)
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || { echo "package.sh: $deb is not $arch" >&2; exit 1; }
  echo "package.sh: $pkg $(dpkg-deb -f "$deb" Version) ($(stat -c %s "$deb") bytes)" >&2
done
# target.json may hold DH-HMAC-CHAP secrets and TLS PSKs: the package must install it 0640 (the
# postinst gives it group skiff).
mode=$(dpkg-deb -c "$out"/skiff_*.deb | awk '$6 == "./etc/skiff/target.json" { print $1 }')
[ "$mode" = "-rw-r-----" ] || { echo "package.sh: ./etc/skiff/target.json is \"$mode\" in the package, expected -rw-r-----" >&2; exit 1; }
realpath "$out"/*.deb
