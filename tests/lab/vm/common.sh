# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the sourcing scripts
# Settings shared by the lab VM scripts (build-image, run). Only the repository and the Debian
# mirror are needed; every path below derives from this folder or from the cache.
#
# Knobs (environment, all optional):
#   SKIFF_LAB_CACHE   image cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/skiff/lab): kernel,
#                     root tree, root image, initramfs, logs of the last runs. About 1 GB.
#   LAB_MIRROR        Debian mirror (default: the host's apt source, else deb.debian.org)
#   LAB_MEM, LAB_SMP  guest memory (2G) and vCPUs (2)
#   LAB_KERNEL        the kernel a boot uses: default (bookworm's 6.1, what every test boots
#                     unless it asks otherwise), backports (bookworm-backports' 6.12, whose
#                     NVMe host has DH-HMAC-CHAP: CONFIG_NVME_HOST_AUTH; the auth test boots it)
#                     or trixie (Debian 13: its kernel, 6.12 with NVMe/TCP TLS, booted on a root
#                     of its own with tlshd from ktls-utils and nvme-cli 2.13; the tls test)

LAB_VM_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LAB_CHECKOUT="$(cd "$LAB_VM_DIR/../../.." && pwd)"
LAB_CACHE="${SKIFF_LAB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/skiff/lab}"
mkdir -p "$LAB_CACHE"
LAB_CACHE="$(cd "$LAB_CACHE" && pwd)"
LAB_SUITE=bookworm
LAB_MEM="${LAB_MEM:-2G}"
LAB_SMP="${LAB_SMP:-2}"
LAB_KERNEL="${LAB_KERNEL:-default}"
# The second kernel comes from here. The host's apt sources need not list it: build-image keeps
# its own apt lists for this suite in the cache.
LAB_BACKPORTS_SUITE=bookworm-backports
# The trixie guest (LAB_KERNEL=trixie): kernel and root from Debian 13, built only when a boot
# asks for it (build-image --trixie, or LAB_KERNEL=trixie in the environment).
LAB_TRIXIE_SUITE=trixie
# Its second kernel (LAB_KERNEL=trixie-backports): trixie-backports' linux-image-amd64 (6.15 or
# later: the NVMe host and target have secure channel concatenation), on the same root.
LAB_TRIXIE_BP_SUITE=trixie-backports

if [ -z "${LAB_MIRROR:-}" ]; then
  LAB_MIRROR="$(sed -n 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  [ -n "$LAB_MIRROR" ] || LAB_MIRROR="$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)"
  LAB_MIRROR="${LAB_MIRROR:-http://deb.debian.org/debian}"
fi

# What the host needs to build and boot the guest.
LAB_HOST_PACKAGES=(qemu-system-x86 debootstrap busybox-static cpio e2fsprogs kmod socat xz-utils zstd)

# The guest's userland, one package list for both boots (a command under a minimal init, or
# systemd for the service test). Besides the initiator tools it holds the run-time libraries of
# skiff's binaries and .debs (spdlog, fmt, ISA-L, libaio, rdma-core, libsystemd), so host-built
# programs run in place and `dpkg -i` of the packages needs no network. dbus and avahi-daemon:
# the mDNS test starts them in the guest (they are not started at boot). (The .debs name
# libspdlog1.10-fmt9, a virtual package debootstrap cannot resolve: libspdlog1.10 provides it.)
LAB_GUEST_PACKAGES="systemd,kmod,iproute2,procps,util-linux,e2fsprogs,nvme-cli,fio,\
rdma-core,ibverbs-providers,ibverbs-utils,rdmacm-utils,socat,python3,openssl,\
libstdc++6,libgcc-s1,libspdlog1.10,libfmt9,libaio1,libisal2,libsystemd0,libibverbs1,librdmacm1,\
libnvme1,liburing2,libnuma1,libuuid1,librbd1,librados2,\
dbus,avahi-daemon,avahi-utils,libavahi-client3"

# The trixie guest's userland: the Linux host's TLS tools (tlshd, keyctl, nvme-cli 2.13) and
# fio. skiff's programs run on the lab host (tests/lab/host-target.sh), not in this guest.
LAB_TRIXIE_GUEST_PACKAGES="kmod,iproute2,procps,util-linux,e2fsprogs,nvme-cli,fio,ktls-utils,keyutils,openssl"

LAB_KERNEL_TREE="$LAB_CACHE/kernel"       # the extracted linux-image package
LAB_BACKPORTS_KERNEL_TREE="$LAB_CACHE/kernel-backports" # the same for bookworm-backports
LAB_BACKPORTS_APT="$LAB_CACHE/apt-backports" # apt's sources, lists and downloads for it
LAB_ROOT_TREE="$LAB_CACHE/root"           # the debootstrapped guest root
LAB_ROOT_IMAGE="$LAB_CACHE/root.ext4"     # its ext4 image (always booted with snapshot=on)
LAB_INITRAMFS="$LAB_CACHE/initramfs.gz"   # busybox: load virtio + ext4, mount the root, hand over
LAB_BACKPORTS_INITRAMFS="$LAB_CACHE/initramfs-backports.gz" # the same with the backports modules
LAB_TRIXIE_APT="$LAB_CACHE/apt-trixie"    # apt's sources, lists and downloads for trixie
LAB_TRIXIE_KERNEL_TREE="$LAB_CACHE/kernel-trixie"
LAB_TRIXIE_ROOT_TREE="$LAB_CACHE/root-trixie"
LAB_TRIXIE_ROOT_IMAGE="$LAB_CACHE/root-trixie.ext4"
LAB_TRIXIE_INITRAMFS="$LAB_CACHE/initramfs-trixie.gz"
LAB_TRIXIE_BP_APT="$LAB_CACHE/apt-trixie-backports"
LAB_TRIXIE_BP_KERNEL_TREE="$LAB_CACHE/kernel-trixie-backports"
LAB_TRIXIE_BP_INITRAMFS="$LAB_CACHE/initramfs-trixie-backports.gz"
LAB_RUNS="$LAB_CACHE/runs"                # one folder of logs per boot

lab_say() { printf 'lab %(%T)T: %s\n' -1 "$*" >&2; }
lab_fail() { lab_say "error: $*"; exit 1; }

# The kernel release of an extracted kernel package (default: the default kernel's), e.g.
# 6.1.0-27-amd64.
lab_kernel_release() { # lab_kernel_release [TREE]
  local d
  for d in "${1:-$LAB_KERNEL_TREE}"/lib/modules/*/; do [ -d "$d" ] && basename "$d"; done | sort -V | tail -n1 | grep .
}
