# Cross build for aarch64 Linux (BlueField's Arm cores) with Debian's cross toolchain
# (g++-aarch64-linux-gnu: binutils, libstdc++ and the C runtime for aarch64) and the :arm64
# development packages installed through multiarch (scripts/install-deps-arm64.sh).
# scripts/build.sh arm64 uses it.
# SKIFF_CROSS_COMPILER picks the compiler: gcc (aarch64-linux-gnu-g++, the default here) or clang
# (clang-14 --target=aarch64-linux-gnu, which links through the same cross binutils and
# libstdc++). scripts/build.sh arm64 takes clang: measured on the test sources, paired, clang
# compiled them in 70 % of the cross g++'s time (-O2), the product's -O2 files in 85 %.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SKIFF_CROSS_COMPILER gcc CACHE STRING "The aarch64 cross compiler: gcc or clang")
if(SKIFF_CROSS_COMPILER STREQUAL "clang")
  set(CMAKE_C_COMPILER clang-14)
  set(CMAKE_CXX_COMPILER clang++-14)
  set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
  set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
elseif(SKIFF_CROSS_COMPILER STREQUAL "gcc")
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
else()
  message(FATAL_ERROR "SKIFF_CROSS_COMPILER is \"${SKIFF_CROSS_COMPILER}\": expected gcc or clang")
endif()
# Multiarch: the arm64 libraries live in /usr/lib/aarch64-linux-gnu next to the native ones;
# find_library looks there because of the library architecture, never in the x86_64 folder.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# ISA-L's arm64 packages cannot be installed next to the native ones (not Multi-Arch "same"):
# scripts/install-deps-arm64.sh unpacks them here.
set(SKIFF_CROSS_PREFIX /opt/skiff-cross/aarch64 CACHE PATH "Unpacked arm64 packages")
list(APPEND CMAKE_PREFIX_PATH ${SKIFF_CROSS_PREFIX}/usr)

# pkg-config must read the arm64 .pc files only (the native ones would hand out x86_64 paths).
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# ctest and gtest_discover_tests run the aarch64 test programs through qemu-user; the libraries
# resolve through the multiarch folders, so no -L sysroot is needed.
find_program(SKIFF_QEMU_AARCH64 qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR ${SKIFF_QEMU_AARCH64})

# CPack: the .deb built from this tree is for arm64.
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
