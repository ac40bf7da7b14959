# Warnings are errors for the project's own code (not for third-party headers).
add_compile_options(
  -Wall -Wextra -Werror
  -Wno-unused-parameter
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>
  -fno-omit-frame-pointer)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  # rdma-core's ibv_reg_mr macro ORs two enum types, which clang (not gcc) flags in C++20.
  add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-deprecated-enum-enum-conversion>)
endif()
