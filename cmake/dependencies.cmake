# Every dependency comes from Debian packages (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(Boost 1.74 REQUIRED)

pkg_check_modules(IBVERBS IMPORTED_TARGET libibverbs)
pkg_check_modules(RDMACM IMPORTED_TARGET librdmacm)
# libnvme is used for its spec structures only (<nvme/types.h>): a header, nothing to link.
find_path(LIBNVME_INCLUDE_DIR nvme/types.h REQUIRED)
find_library(LIBAIO_LIBRARY aio REQUIRED)
find_path(LIBAIO_INCLUDE_DIR libaio.h REQUIRED)
# librados + librbd: the rbd backend (Ceph RBD images; Debian's librbd-dev, librados-dev). Optional:
# Debian's librbd-dev is not Multi-Arch "same", so the arm64 cross build has none and builds
# without the rbd backend (an rbd namespace is then refused with the reason).
find_library(LIBRBD_LIBRARY rbd)
find_library(LIBRADOS_LIBRARY rados)
find_path(LIBRBD_INCLUDE_DIR rbd/librbd.h)
if(LIBRBD_LIBRARY AND LIBRADOS_LIBRARY AND LIBRBD_INCLUDE_DIR)
  set(SKIFF_HAVE_RBD ON)
else()
  set(SKIFF_HAVE_RBD OFF)
  message(STATUS "librbd/librados not found: building without the rbd backend")
endif()
# ISA-L computes the NVMe/TCP digests (CRC32C) with the CPU's CRC instructions (SSE4.2/PCLMUL on
# x86_64, the Armv8 CRC extension/PMULL on aarch64), chosen at run time.
find_path(ISAL_INCLUDE_DIR isa-l/crc.h REQUIRED)
find_library(ISAL_LIBRARY isal REQUIRED)

if(IBVERBS_FOUND AND RDMACM_FOUND)
  set(SKIFF_HAVE_RDMA ON)
else()
  set(SKIFF_HAVE_RDMA OFF)
  message(STATUS "rdma-core not found: RDMA support is compiled out")
endif()

# libsystemd: sd_notify (READY=1, WATCHDOG=1) when skiff-target or skiff-host runs as a
# Type=notify service. Optional: without it the programs run as before.
pkg_check_modules(SYSTEMD IMPORTED_TARGET libsystemd)
if(SYSTEMD_FOUND)
  set(SKIFF_HAVE_SYSTEMD ON)
else()
  set(SKIFF_HAVE_SYSTEMD OFF)
  message(STATUS "libsystemd not found: no sd_notify support for the services")
endif()

# Avahi's client library: skiff-target's mDNS announcement of its discovery listener (config
# "mdns"). Optional: without it "mdns.announce" is refused at start with a message that says so.
pkg_check_modules(AVAHI IMPORTED_TARGET avahi-client)
if(AVAHI_FOUND)
  set(SKIFF_HAVE_AVAHI ON)
else()
  set(SKIFF_HAVE_AVAHI OFF)
  message(STATUS "avahi-client not found: no mDNS announcement (mdns.announce)")
endif()

if(SKIFF_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(SKIFF_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
