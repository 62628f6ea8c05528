# Firmware images and MCU tests for bare-metal builds (EDGEADMM_BARE_METAL);
# included by EdgeAdmmTesting.cmake.
#
# edgeadmm_add_firmware(target)
#   Makes an executable a firmware image for EDGEADMM_BOARD: .elf suffix,
#   the board's startup and linker script, the bare-metal hooks and a map file
#   (<target>.map, read by the footprint report).
#
# edgeadmm_add_mcu_test(NAME .. SOURCES .. LIBS .. LABELS ..)
#   The bare-metal form of edgeadmm_add_gtest: builds the portable sources
#   (*_test.cc, not *_host_test.cc) with the MCU harness into one image and
#   registers a ctest that runs it under the board's runner (QEMU). Tests whose
#   sources are all host-only, or that need a library this build lacks, are
#   skipped with a message (a disabled ctest entry remains).
#   edgeadmm::posix_hooks and GoogleTest are replaced by the board's hooks and
#   the harness.

set(EDGEADMM_MCU_TEST_TIMEOUT 120 CACHE STRING "Seconds one QEMU test image may run")

function(edgeadmm_add_firmware target)
  set_target_properties(${target} PROPERTIES SUFFIX ".elf")
  target_link_libraries(${target} PRIVATE edgeadmm::board edgeadmm::board_hooks
    edgeadmm::baremetal_hooks edgeadmm::baremetal)
  target_link_options(${target} PRIVATE
    "-Wl,-Map=$<TARGET_FILE_DIR:${target}>/${target}.map")
  set_property(TARGET ${target} APPEND PROPERTY ADDITIONAL_CLEAN_FILES
    "$<TARGET_FILE_DIR:${target}>/${target}.map")
endfunction()

# A test that cannot run on the MCU still gets a (never built) target and a
# disabled ctest entry, so its folder's CMakeLists.txt can set properties.
function(_edgeadmm_skipped_mcu_test name reason)
  message(STATUS "MCU test ${name} skipped: ${reason}")
  add_executable(${name} EXCLUDE_FROM_ALL
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/deps/skipped_test_stub.cc")
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES DISABLED TRUE LABELS "skipped")
  edgeadmm_test_env(${name})
endfunction()

function(edgeadmm_add_mcu_test)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;LABELS" ${ARGN})
  set(_sources "")
  set(_portable OFF)
  foreach(_s IN LISTS T_SOURCES)
    if(_s MATCHES "_host_test\\.cc$")
      continue()
    endif()
    if(_s MATCHES "_test\\.cc$")
      set(_portable ON)
    endif()
    list(APPEND _sources "${_s}")
  endforeach()
  if(NOT _portable)
    _edgeadmm_skipped_mcu_test(${T_NAME} "host-only sources")
    return()
  endif()
  set(_libs "")
  foreach(_l IN LISTS T_LIBS)
    if(_l MATCHES "^GTest::" OR _l STREQUAL "edgeadmm::posix_hooks")
      continue()
    endif()
    if(_l STREQUAL "edgeadmm::fake_hooks")  # the board defines the hooks here
      _edgeadmm_skipped_mcu_test(${T_NAME} "it replaces the board's hooks")
      return()
    endif()
    if(NOT TARGET ${_l})
      _edgeadmm_skipped_mcu_test(${T_NAME} "${_l} does not exist on bare metal")
      return()
    endif()
    list(APPEND _libs ${_l})
  endforeach()
  add_executable(${T_NAME} ${_sources})
  target_link_libraries(${T_NAME} PRIVATE ${_libs} edgeadmm::mcu_test_harness)
  edgeadmm_add_firmware(${T_NAME})
  edgeadmm_host_options(${T_NAME})
  add_test(NAME ${T_NAME} COMMAND ${EDGEADMM_BOARD_RUNNER} $<TARGET_FILE:${T_NAME}>)
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "${T_LABELS};mcu"
    TIMEOUT ${EDGEADMM_MCU_TEST_TIMEOUT}
    FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed;edgeadmm panic;fault: exception")
  edgeadmm_test_env(${T_NAME})  # one core: QEMU runs the test's steps flat out
endfunction()
