# Sanitizer builds.
#   -DSKIFF_SANITIZE=ON            ASan + UBSan, any compiler (gcc or clang).
#   -DSKIFF_FUZZ=ON (clang only)   the same, and every library, program and test is instrumented
#                                  for libFuzzer's coverage (fuzzer-no-link); tests/fuzz links each
#                                  harness with libFuzzer's main. scripts/build.sh asan is this build:
#                                  one clang build runs the whole test suite and the fuzzers.
option(SKIFF_FUZZ "Build with ASan + UBSan and the libFuzzer harnesses (clang only)" OFF)
if(SKIFF_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SKIFF_FUZZ=ON needs clang (scripts/build.sh asan uses clang-14)")
  endif()
  # One -fsanitize list, as the fuzz-only build had it: the libraries' objects keep their ccache
  # entries.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined)
  add_compile_definitions(SKIFF_SANITIZE=1 SKIFF_FUZZ=1)
elseif(SKIFF_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_compile_definitions(SKIFF_SANITIZE=1)
endif()

if(SKIFF_FUZZ OR SKIFF_SANITIZE)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # A C program (tests/c) linked by clang gets only UBSan's C runtime, but libskiff-core is C++
    # and its vptr checks need the C++ half (and that half needs libstdc++).
    add_link_options("$<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime;-lstdc++>")
  endif()
endif()
