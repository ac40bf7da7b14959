# Install rules: `cmake --install build --prefix P` lays out what the three Debian packages carry
# (cmake/packaging.cmake). Components:
#   skiff             the programs, the systemd units and the configuration under /etc/skiff
#   libskiff-core     the shared library libskiff-core.so.N
#   libskiff-core-dev the DOCA-compatible C headers (under include/skiff-doca/ so they never clash
#                     with a real DOCA install), libskiff-core.so, skiff-doca.pc, the CMake package,
#                     skiff-dpacc (DPA device code, core/src/dpa/README.md)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Installed programs find libskiff-core relative to themselves (P/bin -> P/lib/<multiarch>), so
# `cmake --install build --prefix P` works for any P; the packages (prefix /usr) need no RUNPATH:
# the dynamic loader looks in /usr/lib/<multiarch> anyway.
if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  file(RELATIVE_PATH _skiff_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
  set_target_properties(skiff-target skiff-host skiff-ctl skiff-perf
                        PROPERTIES INSTALL_RPATH "$ORIGIN/${_skiff_bin_to_lib}")
endif()

install(TARGETS skiff-target skiff-host skiff-ctl skiff-perf
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT skiff)
install(TARGETS skiff-core
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libskiff-core NAMELINK_SKIP)
install(TARGETS skiff-core
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libskiff-core-dev NAMELINK_ONLY)

# The C headers only: include/skiff/ holds the C++ API, which is internal to skiff.
set(SKIFF_DOCA_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/skiff-doca)
file(GLOB _skiff_doca_headers ${PROJECT_SOURCE_DIR}/core/include/doca_*.h)
install(FILES ${_skiff_doca_headers} DESTINATION ${SKIFF_DOCA_INCLUDEDIR} COMPONENT libskiff-core-dev)
# The FlexIO resources calls DOCA's DPA samples include, and the dpacc stand-in for device code.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/libflexio DESTINATION ${SKIFF_DOCA_INCLUDEDIR}
        COMPONENT libskiff-core-dev)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/core/tools/skiff-dpacc DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT libskiff-core-dev)

# pkg-config: /usr for the packages; otherwise the prefix is found from where the .pc file lies
# (${pcfiledir}), so a tree installed with `cmake --install build --prefix P` works wherever P is.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(SKIFF_PC_PREFIX /usr)
else()
  file(RELATIVE_PATH _skiff_pc_to_prefix ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
  string(REGEX REPLACE "/$" "" _skiff_pc_to_prefix "${_skiff_pc_to_prefix}")
  set(SKIFF_PC_PREFIX "\${pcfiledir}/${_skiff_pc_to_prefix}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/packaging/skiff-doca.pc.in ${PROJECT_BINARY_DIR}/packaging/skiff-doca.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/packaging/skiff-doca.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT libskiff-core-dev)

# find_package(skiff): an imported target skiff::doca (the library plus the include directory).
set(_skiff_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/skiff)
configure_package_config_file(${PROJECT_SOURCE_DIR}/packaging/skiff-config.cmake.in
                              ${PROJECT_BINARY_DIR}/packaging/skiff-config.cmake
                              INSTALL_DESTINATION ${_skiff_cmake_dir}
                              PATH_VARS SKIFF_DOCA_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/packaging/skiff-config-version.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/packaging/skiff-config.cmake
              ${PROJECT_BINARY_DIR}/packaging/skiff-config-version.cmake
        DESTINATION ${_skiff_cmake_dir} COMPONENT libskiff-core-dev)

# Services. The units name /usr/bin and /etc/skiff: they are for the packaged layout (prefix /usr).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/systemd/skiff-target.service
              ${PROJECT_SOURCE_DIR}/packaging/systemd/skiff-host.service
        DESTINATION lib/systemd/system COMPONENT skiff)
# /etc/skiff for the packages (prefix /usr), P/etc/skiff for any other prefix (a relative
# destination, so `cmake --install --prefix P` keeps it under P).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(_skiff_etc /etc/skiff)
else()
  set(_skiff_etc ${CMAKE_INSTALL_SYSCONFDIR}/skiff)
endif()
# The services' user (systemd-sysusers; the package's postinst applies it).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/sysusers.d/skiff.conf DESTINATION lib/sysusers.d COMPONENT skiff)
# target.json may hold DH-HMAC-CHAP secrets and TLS PSKs: 0640 (the postinst gives it group skiff,
# the service's group); host.conf holds none.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/etc/target.json DESTINATION ${_skiff_etc}
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ COMPONENT skiff)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/etc/host.conf DESTINATION ${_skiff_etc} COMPONENT skiff)

# Documentation the units point at.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/deploy-bluefield.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT skiff OPTIONAL)
# The Grafana dashboard for the metrics endpoint (dataplane/src/metrics/README.md).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/grafana/skiff-dashboard.json
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/grafana COMPONENT skiff)
