#!/usr/bin/env bash
# Installs the Debian packages skiff needs, only those that are missing. Idempotent; run as root
# (or with sudo available) on Debian 12.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git ccache
  libibverbs-dev librdmacm-dev rdma-core ibverbs-providers
  libssl-dev libaio-dev libnvme-dev libisal-dev libsystemd-dev libboost-dev libspdlog-dev nlohmann-json3-dev libcli11-dev
  # skiff-target's mDNS announcement of its discovery listener (optional at build time)
  libavahi-client-dev
  # the rbd backend (Ceph RBD images through librados/librbd); the dev cluster's daemons
  # (scripts/ceph-dev-cluster.sh) are installed by that script when it first runs
  librbd-dev librados-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the sanitizer and fuzz build (scripts/build.sh asan, scripts/fuzz.sh): clang with libFuzzer and its sanitizers
  clang-14 libclang-rt-14-dev
  iproute2 procps python3
  # the TLS interoperability tests drive the openssl command-line client and nvme-cli's key tools
  openssl nvme-cli
  # the metrics tests check a scrape with promtool and scrape the target with a real Prometheus
  prometheus
  # the lab VM (tests/lab/vm/build-image checks the same list): qemu under TCG, debootstrap for
  # the guest image, busybox + cpio for its initramfs, socat for the guest-to-host relay, xz and
  # zstd to unpack the kernels' vmlinux (6.1's is xz-compressed, the backports 6.12's zstd)
  qemu-system-x86 debootstrap busybox-static cpio e2fsprogs kmod socat xz-utils zstd
  gnuplot-nox
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
