# edgeadmm_add_example_program(NAME base SHARD_TARGET target
#                              [COMPARE_ARGS args...]
#                              [FLOAT_COMPARE_ARGS args...])
# The Cortex-M4 example programs (this folder and ../cortex_m4_sharing):
# main.cc of the calling folder built as the firmware <base>.elf (bare metal)
# or the host twin <base>_host, with the generated shard header of
# SHARD_TARGET (in <binary dir>/generated) and example_output.h, and the
# ctest <name>_matches_host comparing its output with the folder's
# expected_output.txt (compare_output.py COMPARE_ARGS; label example;
# FLOAT_COMPARE_ARGS are added last for a float build).
#
# edgeadmm_example_a9a(var)
#   var = the a9a file the examples' shards come from ($EDGEADMM_DATA or
#   EDGEADMM_DATA_DIR), or empty with a message when it is missing (the
#   calling folder then returns).
set(EDGEADMM_EXAMPLE_TOOLS "${CMAKE_CURRENT_LIST_DIR}")

function(edgeadmm_example_a9a var)
  if(DEFINED ENV{EDGEADMM_DATA})
    set(_data "$ENV{EDGEADMM_DATA}/a9a.xz")
  else()
    set(_data "${EDGEADMM_DATA_DIR}/a9a.xz")
  endif()
  if(NOT EXISTS "${_data}")
    file(RELATIVE_PATH _folder "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
    message(STATUS "${_folder} skipped: ${_data} not found")
    set(_data "")
  endif()
  set(${var} "${_data}" PARENT_SCOPE)
endfunction()

function(edgeadmm_add_example_program)
  cmake_parse_arguments(E "" "NAME;SHARD_TARGET" "COMPARE_ARGS;FLOAT_COMPARE_ARGS" ${ARGN})
  if(EDGEADMM_BARE_METAL)
    set(_name ${E_NAME})
    set(_run ${EDGEADMM_BOARD_RUNNER})
  else()
    set(_name ${E_NAME}_host)
    set(_run ${CMAKE_CROSSCOMPILING_EMULATOR})
  endif()
  add_executable(${_name} main.cc)
  add_dependencies(${_name} ${E_SHARD_TARGET})
  target_include_directories(${_name} PRIVATE
    "${CMAKE_CURRENT_BINARY_DIR}/generated" "${EDGEADMM_EXAMPLE_TOOLS}")
  target_link_libraries(${_name} PRIVATE edgeadmm::sdk edgeadmm::fake)
  edgeadmm_device_options(${_name})
  if(EDGEADMM_BARE_METAL)
    target_compile_definitions(${_name} PRIVATE EDGEADMM_EXAMPLE_BAREMETAL=1)
    edgeadmm_add_firmware(${_name})
  else()
    target_compile_definitions(${_name} PRIVATE EDGEADMM_EXAMPLE_BAREMETAL=0)
    target_link_libraries(${_name} PRIVATE edgeadmm::posix_hooks)
  endif()
  # A float build (EDGEADMM_REAL) is compared with the double host output at
  # float32's precision: the last options given win in compare_output.py.
  set(_tolerance)
  if(EDGEADMM_REAL STREQUAL "float")
    set(_tolerance --rtol 1e-3 --atol 1e-5 --skip streaming_bytes
        ${E_FLOAT_COMPARE_ARGS})
  endif()
  if(EDGEADMM_BUILD_TESTS)
    add_test(NAME ${_name}_matches_host
      COMMAND "${EDGEADMM_SYSTEM_PYTHON}" "${EDGEADMM_EXAMPLE_TOOLS}/compare_output.py"
              "${CMAKE_CURRENT_SOURCE_DIR}/expected_output.txt" ${E_COMPARE_ARGS} ${_tolerance}
              -- ${_run} $<TARGET_FILE:${_name}>)
    set_tests_properties(${_name}_matches_host PROPERTIES LABELS "example" TIMEOUT 300)
    edgeadmm_test_env(${_name}_matches_host)
  endif()
endfunction()
