# ASan + UBSan build: -DSKIFF_SANITIZE=ON. The test command builds and runs it too.
if(SKIFF_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_compile_definitions(SKIFF_SANITIZE=1)
endif()
