# Test helpers.
#
# edgeadmm_add_gtest(NAME name SOURCES ... LIBS ... [LABELS ...])
#   Builds a GoogleTest executable on hosted targets and registers it with
#   CTest as one test (runs under CMAKE_CROSSCOMPILING_EMULATOR when cross
#   compiling). EDGEADMM_DATA points the test at the shared data sets.
if(EDGEADMM_BARE_METAL)
  include(CrossBareMetal)  # edgeadmm_add_mcu_test, edgeadmm_add_firmware
endif()
include(EdgeAdmmTestSchedule)  # edgeadmm_test_cpu
# A test driver's own sources are built for a short build, not a fast run:
# at -Og with line tables (-g1, enough for backtraces) in place of the build
# type's -O2 -g (RelWithDebInfo) or -O1 (the sanitized presets; host-debug
# keeps its -O0 -g for stepping through tests). The code under test, in the
# libraries it links, keeps the build type's flags. Half of a test source's
# compile time is its headers, the other half optimizing, instrumenting and
# describing its TEST bodies; -Og about halves the second
# (docs/architecture.md, "Build time"). A driver keeps every sanitizer
# check it has at -O1: UBSan inserts its checks in the front end, and -Og
# runs a subset of -O1's passes, so no more accesses are proven safe.
function(edgeadmm_test_driver_options target)
  if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo" OR EDGEADMM_SANITIZE)
    target_compile_options(${target} PRIVATE -Og -g1)
  endif()
endfunction()

# GoogleTest's header is most of a short test driver's compile (about a
# second of CPU per source file). It is parsed once per build into a
# precompiled header that every driver reuses (REUSE_FROM: one .gch of about
# 75 MB per build, not one per test). GCC does not write the .gch byte for
# byte the same twice, and a driver's cached object is keyed on it: ccache
# caches the .gch's creation too (CCACHE_SLOPPINESS, EdgeAdmmCompilerCache),
# so a fresh clone restores the same bytes and its drivers hit the cache.
# CMake compiles the drivers with -Winvalid-pch: a driver whose flags the
# header does not fit says so (an error under EDGEADMM_WERROR).
function(edgeadmm_use_gtest_pch target)
  if(NOT TARGET edgeadmm_gtest_pch)
    set(_anchor "${PROJECT_BINARY_DIR}/edgeadmm_gtest_pch.cc")
    file(CONFIGURE OUTPUT "${_anchor}"
      CONTENT "// Compiled only to build the precompiled GoogleTest header.\n")
    add_library(edgeadmm_gtest_pch OBJECT "${_anchor}")
    target_link_libraries(edgeadmm_gtest_pch PRIVATE GTest::gtest)
    edgeadmm_host_options(edgeadmm_gtest_pch)
    edgeadmm_test_driver_options(edgeadmm_gtest_pch)
    target_precompile_headers(edgeadmm_gtest_pch PRIVATE <gtest/gtest.h>)
    # ccache hashes this small checksum file in place of the 75 MB header
    # (CCACHE_PCH_EXTSUM, EdgeAdmmCompilerCache): 0.4 s less per driver on a
    # cache hit, 0.3 s less on a miss. It is written after the header and
    # before any driver compiles, so it never describes an older header.
    set(_gch "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/edgeadmm_gtest_pch.dir/cmake_pch.hxx.gch")
    add_custom_command(OUTPUT "${_gch}.sum"
      COMMAND ${CMAKE_COMMAND} -DFILE=${_gch}
              -P ${PROJECT_SOURCE_DIR}/cmake/WriteChecksum.cmake
      DEPENDS "${_gch}" VERBATIM)
    add_custom_target(edgeadmm_gtest_pch_sum DEPENDS "${_gch}.sum")
    add_dependencies(edgeadmm_gtest_pch_sum edgeadmm_gtest_pch)
  endif()
  target_precompile_headers(${target} REUSE_FROM edgeadmm_gtest_pch)
  add_dependencies(${target} edgeadmm_gtest_pch_sum)
endfunction()

function(edgeadmm_add_gtest)
  if(EDGEADMM_BARE_METAL)  # MCU harness under QEMU (cmake/CrossBareMetal.cmake)
    edgeadmm_add_mcu_test(${ARGN})
    return()
  endif()
  # EMULATOR_EXCLUDE: GoogleTest names (patterns) not run when the test runs
  # under CMAKE_CROSSCOMPILING_EMULATOR (qemu-user), e.g. tests that start a
  # second thread or process, which qemu-user 7.2 hangs (docs/porting.md).
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS;EMULATOR_EXCLUDE" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  edgeadmm_host_options(${T_NAME})
  edgeadmm_test_driver_options(${T_NAME})
  edgeadmm_use_gtest_pch(${T_NAME})
  set(_args "")
  if(CMAKE_CROSSCOMPILING_EMULATOR AND T_EMULATOR_EXCLUDE)
    list(JOIN T_EMULATOR_EXCLUDE ":" _excluded)
    set(_args "--gtest_filter=-${_excluded}")
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} ${_args})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "EDGEADMM_DATA=$ENV{EDGEADMM_DATA}"
    LABELS "${T_LABELS}")
  if(NOT DEFINED ENV{EDGEADMM_DATA})
    set_tests_properties(${T_NAME} PROPERTIES
      ENVIRONMENT "EDGEADMM_DATA=${EDGEADMM_DATA_DIR}")
  endif()
  edgeadmm_test_env(${T_NAME})
endfunction()

# Sets <var> to the data directory tests read: $EDGEADMM_DATA at configure
# time if set, else EDGEADMM_DATA_DIR.
function(edgeadmm_data_dir var)
  if(DEFINED ENV{EDGEADMM_DATA})
    set(${var} "$ENV{EDGEADMM_DATA}" PARENT_SCOPE)
  else()
    set(${var} "${EDGEADMM_DATA_DIR}" PARENT_SCOPE)
  endif()
endfunction()

# Cross builds do not build the daemon or the CLI: tests that run a
# cross-built device or firmware against the real daemon take them from this
# host build tree (scripts/test-targets builds them there first) and report
# "skipped" (exit 77) when they are missing.
set(EDGEADMM_HOST_BUILD_DIR "${PROJECT_SOURCE_DIR}/build/host-release" CACHE PATH
  "Host build tree with aggregator/daemon/edgeadmm-aggregatord and aggregator/cli/edgeadmm (cross-target daemon tests)")

# A preset skips an area its target cannot build, or one whose tests its
# test preset never runs (aarch64: the daemon's integration tests).
set(EDGEADMM_SKIP_AREAS "" CACHE STRING
  "Source folders (relative to the top, e.g. platform/posix/coap) not to add")

# Adds every immediate subdirectory of the current source dir that has a
# CMakeLists.txt, so areas can be added without touching a shared file.
function(edgeadmm_add_all_subdirectories)
  file(GLOB _children LIST_DIRECTORIES true RELATIVE "${CMAKE_CURRENT_SOURCE_DIR}"
    "${CMAKE_CURRENT_SOURCE_DIR}/*")
  list(SORT _children)
  foreach(_child IN LISTS _children)
    # Folders named aggregator (its code, its tests) need the aggregator build.
    if(_child STREQUAL "aggregator" AND NOT EDGEADMM_BUILD_AGGREGATOR)
      continue()
    endif()
    # Integration tests (daemon, DTLS, sockets) and fuzzers need a hosted OS.
    if(_child MATCHES "^(integration|fuzz)$" AND EDGEADMM_BARE_METAL)
      continue()
    endif()
    # Areas a preset leaves out (EDGEADMM_SKIP_AREAS).
    file(RELATIVE_PATH _area "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/${_child}")
    if(_area IN_LIST EDGEADMM_SKIP_AREAS)
      message(STATUS "Area ${_area} skipped (EDGEADMM_SKIP_AREAS)")
      continue()
    endif()
    if(IS_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/${_child}"
       AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${_child}/CMakeLists.txt")
      add_subdirectory(${_child})
    endif()
  endforeach()
endfunction()

# Python tests that drive the real stack import tools/python/edgeadmm_stack.py:
# put that folder on their PYTHONPATH.
function(edgeadmm_python_test_env name)
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
    "PYTHONPATH=${PROJECT_SOURCE_DIR}/tools/python")
  edgeadmm_test_env(${name})
endfunction()

# edgeadmm_stack_python_test(NAME n SCRIPT s LABELS l TIMEOUT t [ARGS ...]):
# a Python test of the real stack (CLI, daemon and fleet of this build): run
# with the system Python as `s --build-dir <build> --data <data dir>
# --work-dir <its binary folder>/n ARGS...`, with tools/python on its
# PYTHONPATH, exit 77 counted as skipped; LABELS takes a list. Not added
# when the three programs or the system Python are missing, nor in a cross
# build (the script runs the programs itself).
function(edgeadmm_stack_python_test)
  cmake_parse_arguments(T "" "NAME;SCRIPT;TIMEOUT" "ARGS;LABELS" ${ARGN})
  # The script runs the programs itself, not through an emulator.
  if(NOT TARGET edgeadmm OR NOT TARGET edgeadmm-aggregatord
     OR NOT TARGET edgeadmm-fleet OR NOT EDGEADMM_SYSTEM_PYTHON
     OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  edgeadmm_data_dir(data)
  add_test(NAME ${T_NAME}
    COMMAND ${EDGEADMM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/${T_SCRIPT}
            --build-dir ${PROJECT_BINARY_DIR} --data ${data}
            --work-dir ${CMAKE_CURRENT_BINARY_DIR}/${T_NAME} ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}"
    TIMEOUT ${T_TIMEOUT} SKIP_RETURN_CODE 77)
  edgeadmm_python_test_env(${T_NAME})
endfunction()

# edgeadmm_test_env(name): in sanitizer builds (EDGEADMM_SANITIZE, the
# host-asan preset) the test, and every process it starts (daemon, CLI, fleet
# under the Python tests), runs with the options below. EDGEADMM_SANITIZED=1
# is the one switch a test reads to run smaller under a sanitizer; each such
# test prints what it reduced (docs/architecture.md, "Sanitizers").
# Third-party leak suppressions, each with its reason: tests/sanitizers/
# lsan.supp. It also declares one core of CPU for a test that has not
# declared its own (edgeadmm_test_cpu). edgeadmm_add_gtest and
# edgeadmm_python_test_env call it; a test added with add_test directly calls
# it itself (test_cpu_check checks that every test declares its CPU).
function(edgeadmm_test_env name)
  get_test_property(${name} RESOURCE_GROUPS _groups)
  if(NOT _groups)
    edgeadmm_test_cpu(${name} 100)
  endif()
  if(NOT EDGEADMM_SANITIZE OR EDGEADMM_BARE_METAL)
    return()
  endif()
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
    "ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp"
    "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1"
    "EDGEADMM_SANITIZED=1")
endfunction()

# edgeadmm_sanitizer_reduced(name what): test `name` runs smaller in sanitizer
# builds (it reads EDGEADMM_SANITIZED; `what` says how). Listed when the build
# is configured and labelled sanitizer-reduced, so
# `ctest --preset host-asan -N -L sanitizer-reduced` prints the list
# (scripts/test does).
function(edgeadmm_sanitizer_reduced name what)
  if(NOT EDGEADMM_SANITIZE OR EDGEADMM_BARE_METAL)
    return()
  endif()
  set_property(TEST ${name} APPEND PROPERTY LABELS sanitizer-reduced)
  message(STATUS "Sanitizer build: ${name} runs smaller (${what})")
endfunction()

# edgeadmm_source_check(LABEL label TESTS name script [args...] [; name ...]):
# checks of the tree's rules (docs paths, layers, sizes, every test's CPU):
# one ctest per `NAME name SCRIPT script [ARGS ...]` group, run with the
# system Python, labelled `label`, in host builds only.
function(edgeadmm_source_check label)
  if(EDGEADMM_BARE_METAL OR CMAKE_CROSSCOMPILING OR NOT EDGEADMM_SYSTEM_PYTHON)
    return()
  endif()
  set(args ${ARGN})
  while(args)
    list(POP_FRONT args keyword name script_keyword script)
    if(NOT keyword STREQUAL "NAME" OR NOT script_keyword STREQUAL "SCRIPT")
      message(FATAL_ERROR "edgeadmm_source_check: NAME n SCRIPT s [ARGS ...]")
    endif()
    set(script_args "")
    if(args)
      list(GET args 0 next)
      if(next STREQUAL "ARGS")
        list(POP_FRONT args)
        while(args)
          list(GET args 0 next)
          if(next STREQUAL "NAME")
            break()
          endif()
          list(POP_FRONT args value)
          list(APPEND script_args ${value})
        endwhile()
      endif()
    endif()
    add_test(NAME ${name}
      COMMAND ${EDGEADMM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/${script}
              ${script_args})
    set_tests_properties(${name} PROPERTIES LABELS "${label}" TIMEOUT 120)
    edgeadmm_test_env(${name})
  endwhile()
endfunction()
