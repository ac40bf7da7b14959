# ASan + UBSan build: -DSKIFF_SANITIZE=ON. The test command builds and runs it too.
if(SKIFF_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(SKIFF_SANITIZE=1)
endif()

# libFuzzer harnesses (tests/fuzz/): -DSKIFF_FUZZ=ON with clang. Every library is instrumented for
# coverage (fuzzer-no-link) under ASan + UBSan; only the harness executables link libFuzzer's main.
option(SKIFF_FUZZ "Build the libFuzzer harnesses (clang only) under ASan + UBSan" OFF)
if(SKIFF_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SKIFF_FUZZ=ON needs clang (scripts/build.sh fuzz uses clang-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
  # rdma-core's ibv_reg_mr macro ORs two enum types, which clang (not gcc) flags in C++20.
  add_compile_options(-Wno-deprecated-enum-enum-conversion)
  add_link_options(-fsanitize=address,undefined)
  # A C program (tests/c) linked by clang gets only UBSan's C runtime, but libskiff-core is C++ and
  # its vptr checks need the C++ half (and that half needs libstdc++).
  add_link_options("$<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime;-lstdc++>")
  add_compile_definitions(SKIFF_SANITIZE=1 SKIFF_FUZZ=1)
endif()
