# CPack: three Debian packages from the install components (cmake/install.cmake).
#   skiff             skiff-target, skiff-host, skiff-ctl, skiff-perf, the systemd units, /etc/skiff
#   libskiff-core     libskiff-core.so.N (the DOCA-compatible library)
#   libskiff-core-dev the C headers (include/skiff-doca/), skiff-doca.pc, find_package(skiff)
# scripts/package.sh builds them: cpack -G DEB in a build configured with prefix /usr.
set(CPACK_PACKAGE_NAME skiff)
set(CPACK_PACKAGE_VENDOR "skiff project")
set(CPACK_PACKAGE_CONTACT "skiff maintainers <skiff-maintainers@lists.skiff.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NVMe-over-Fabrics target for DPUs on a DOCA-compatible core")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL skiff libskiff-core libskiff-core-dev)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# The packages carry stripped binaries (the build tree keeps the debug information).
set(CPACK_STRIP_FILES ON)

# Debian revision 1; file names are the Debian convention: <name>_<version>-<rev>_<arch>.deb.
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The target architecture: dpkg's name for it (amd64, arm64), from the compiler, so a cross build
# (scripts/build.sh arm64) packages arm64.
if(NOT CPACK_DEBIAN_PACKAGE_ARCHITECTURE)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
  endif()
endif()
set(_skiff_deb_version "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")

# Run-time dependencies: dpkg-shlibdeps reads them from the binaries when it can (a native
# build); SKIFF_DEB_EXPLICIT_DEPENDS=ON (a cross build without the target's dpkg database) uses
# the Debian 12 package names below instead.
option(SKIFF_DEB_EXPLICIT_DEPENDS "Name the Debian 12 run-time packages instead of running dpkg-shlibdeps" OFF)
set(_skiff_core_deps "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1, libspdlog1.10-fmt9, libfmt9")
if(SKIFF_HAVE_RDMA)
  string(APPEND _skiff_core_deps ", libibverbs1 (>= 44), librdmacm1 (>= 44)")
endif()
set(_skiff_bin_deps "${_skiff_core_deps}, libaio1, libisal2, libssl3")
if(SKIFF_HAVE_RBD)
  string(APPEND _skiff_bin_deps ", librbd1, librados2")
endif()
if(SKIFF_HAVE_SYSTEMD)
  string(APPEND _skiff_bin_deps ", libsystemd0")
endif()
if(SKIFF_HAVE_AVAHI)
  string(APPEND _skiff_bin_deps ", libavahi-client3, libavahi-common3")
endif()
if(SKIFF_DEB_EXPLICIT_DEPENDS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_LIBSKIFF-CORE_PACKAGE_DEPENDS "${_skiff_core_deps}")
  set(CPACK_DEBIAN_SKIFF_PACKAGE_DEPENDS "libskiff-core (= ${_skiff_deb_version}), ${_skiff_bin_deps}")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # dpkg-shlibdeps resolves libskiff-core.so.N from the build tree (the libskiff-core package
  # provides it; the explicit dependency below says so with the exact version).
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
  set(CPACK_DEBIAN_SKIFF_PACKAGE_DEPENDS "libskiff-core (= ${_skiff_deb_version})")
endif()

# skiff
set(CPACK_DEBIAN_SKIFF_PACKAGE_NAME skiff)
set(CPACK_DEBIAN_SKIFF_PACKAGE_SECTION net)
set(CPACK_COMPONENT_SKIFF_DESCRIPTION
    "NVMe-over-Fabrics target for DPUs (BlueField-class SmartNICs)\n"
    "skiff-target serves NVMe/TCP and NVMe/RDMA namespaces backed by RAM, files or block devices\n"
    "(libaio) or host memory lent by skiff-host over PCI; skiff-ctl changes a running target;\n"
    "skiff-perf measures it. Includes systemd units (skiff-target.service, skiff-host.service) and\n"
    "the default configuration /etc/skiff/target.json.")
set(CPACK_DEBIAN_SKIFF_PACKAGE_RECOMMENDS "nvme-cli")
set(CPACK_DEBIAN_SKIFF_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/packaging/debian/conffiles ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
    ${PROJECT_SOURCE_DIR}/packaging/debian/prerm ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_SKIFF_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# libskiff-core
set(CPACK_DEBIAN_LIBSKIFF-CORE_PACKAGE_NAME libskiff-core)
set(CPACK_DEBIAN_LIBSKIFF-CORE_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_LIBSKIFF-CORE_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_COMPONENT_LIBSKIFF-CORE_DESCRIPTION
    "DOCA Core / DOCA DPA compatible library (skiff)\n"
    "libskiff-core implements the DOCA Core API (devices, mmaps with PCI export and import, bufs,\n"
    "progress engines, DMA, RDMA over rdma-core, sync events) and an emulated DPA in software, so\n"
    "DOCA programs run on machines without BlueField hardware.")

# libskiff-core-dev
set(CPACK_DEBIAN_LIBSKIFF-CORE-DEV_PACKAGE_NAME libskiff-core-dev)
set(CPACK_DEBIAN_LIBSKIFF-CORE-DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_LIBSKIFF-CORE-DEV_PACKAGE_ARCHITECTURE ${CPACK_DEBIAN_PACKAGE_ARCHITECTURE})
set(CPACK_DEBIAN_LIBSKIFF-CORE-DEV_PACKAGE_DEPENDS "libskiff-core (= ${_skiff_deb_version}), pkg-config, python3")
set(CPACK_COMPONENT_LIBSKIFF-CORE-DEV_DESCRIPTION
    "DOCA-compatible headers for libskiff-core (skiff)\n"
    "The DOCA C headers (doca_dev.h, doca_mmap.h, doca_dma.h, ...) under /usr/include/skiff-doca,\n"
    "apart from a real DOCA install, with pkg-config (skiff-doca) and CMake (find_package(skiff),\n"
    "target skiff::doca) files.")

include(CPack)
