# Cross build for aarch64 Linux (BlueField's Arm cores) with Debian's cross toolchain
# (g++-aarch64-linux-gnu) and the :arm64 development packages installed through multiarch
# (scripts/install-deps-arm64.sh). scripts/build.sh arm64 uses it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
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
