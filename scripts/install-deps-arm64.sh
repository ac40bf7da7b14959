#!/usr/bin/env bash
# Installs what the arm64 (aarch64, BlueField) cross build and its tests need, only what is
# missing: Debian's cross toolchain, the arm64 development packages through multiarch, and
# qemu-user to run the aarch64 tests on this machine. Idempotent; run as root (or with sudo
# available) on Debian 12. scripts/build.sh arm64 calls it after scripts/install-deps.sh.
set -euo pipefail

# Linked libraries come in their :arm64 flavour. Header-only ones (nlohmann-json, CLI11, Boost)
# and libnvme (skiff uses its spec header only) are shared with the native build: libnvme-dev
# is not Multi-Arch "same", so its :arm64 package would uninstall the native one.
PACKAGES=(
  crossbuild-essential-arm64 qemu-user
  libibverbs-dev:arm64 librdmacm-dev:arm64 libaio-dev:arm64
  libspdlog-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libsystemd-dev:arm64
  libssl-dev:arm64
)
# ISA-L is not Multi-Arch "same" either: its arm64 packages are unpacked into a prefix of their
# own instead of being installed (cmake/toolchain-aarch64-linux-gnu.cmake searches it).
ISAL_PACKAGES=(libisal2:arm64 libisal-dev:arm64)
ISAL_PREFIX=/opt/skiff-cross/aarch64

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "install-deps-arm64: adding the arm64 architecture to dpkg"
  $SUDO dpkg --add-architecture arm64
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
isal_missing=0
[ -e "$ISAL_PREFIX/usr/lib/aarch64-linux-gnu/libisal.so" ] || isal_missing=1

if [ ${#missing[@]} -eq 0 ] && [ "$isal_missing" = 0 ]; then
  echo "install-deps-arm64: all ${#PACKAGES[@]} packages and ISA-L (arm64) present"
  exit 0
fi

$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps-arm64: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
if [ "$isal_missing" = 1 ]; then
  echo "install-deps-arm64: unpacking ${ISAL_PACKAGES[*]} into $ISAL_PREFIX"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  chmod 777 "$tmp" # apt-get download runs as the unprivileged _apt user
  (cd "$tmp" && apt-get download -qq "${ISAL_PACKAGES[@]}")
  $SUDO mkdir -p "$ISAL_PREFIX"
  for deb in "$tmp"/*.deb; do $SUDO dpkg-deb -x "$deb" "$ISAL_PREFIX"; done
fi
