# Warnings are errors for the project's own code (not for third-party headers).
add_compile_options(
  -Wall -Wextra -Werror
  -Wno-unused-parameter
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>
  -fno-omit-frame-pointer)
