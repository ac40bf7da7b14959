# Optimisation levels below the build type's for code on no data path, where a flavour of
# scripts/build.sh asks for them: they cut the compile time of a cold build (CI's, on 2 cores)
# without touching what the product's data path runs.
#   SKIFF_TEST_OPTIMIZE          the test sources and the helper programs the tests start (the
#                                tests call the libraries, which keep the build type's level);
#                                -O0 compiles a test source in about 60 % of -O2's time
#   SKIFF_COMMAND_LINE_OPTIMIZE  the files that parse a program's command line with CLI11 (run
#                                once per process; CLI11's header-only code takes 17 s of a file
#                                at -O2 -g and half that at -O1)
#   SKIFF_CONTROL_PLANE_OPTIMIZE the control plane: config/ (loading, checking and saving the
#                                configuration), dataplane/src/manage/ (the management socket,
#                                live reconfiguration) and the programs' own files under apps/.
#                                They run once per command or per reload, mostly nlohmann/json
#                                templates: -O1 compiles them in about three quarters of -O2's
#                                time (gcc, paired: live_config.cpp 13.3 -> 9.7 s,
#                                management_server.cpp 11.5 -> 8.5, load.cpp 10.5 -> 8.7)
# Empty (the default, and in the packages): the build type's level. The flags come after the
# build type's on the command line, so the last -O wins.
set(SKIFF_TEST_OPTIMIZE "" CACHE STRING "Optimisation flags of the test sources and helper programs (empty: the build type's)")
set(SKIFF_COMMAND_LINE_OPTIMIZE "" CACHE STRING "Optimisation flags of the command-line parsing files (empty: the build type's)")
set(SKIFF_CONTROL_PLANE_OPTIMIZE "" CACHE STRING "Optimisation flags of the control plane's files (empty: the build type's)")

# skiff_control_plane_sources(<file>...): files on no data path (call it in the directory that
# adds them to a target). A file that is also a command-line file takes that level instead.
function(skiff_control_plane_sources)
  if(SKIFF_CONTROL_PLANE_OPTIMIZE)
    separate_arguments(flags UNIX_COMMAND "${SKIFF_CONTROL_PLANE_OPTIMIZE}")
    set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS ${flags})
    skiff_skip_precompiled_headers("${flags}" ${ARGN})
  endif()
endfunction()

# skiff_command_line_sources(<file>...): files whose job is the command line (call it in the
# directory that adds them to a target).
function(skiff_command_line_sources)
  if(SKIFF_COMMAND_LINE_OPTIMIZE)
    separate_arguments(flags UNIX_COMMAND "${SKIFF_COMMAND_LINE_OPTIMIZE}")
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${flags}")
    skiff_skip_precompiled_headers("${flags}" ${ARGN})
  endif()
endfunction()

# skiff_test_optimize(<target>): a test binary or helper program.
function(skiff_test_optimize target)
  if(SKIFF_TEST_OPTIMIZE)
    separate_arguments(flags UNIX_COMMAND "${SKIFF_TEST_OPTIMIZE}")
    target_compile_options(${target} PRIVATE ${flags})
  endif()
endfunction()
