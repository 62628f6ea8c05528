# How many tests run at once: each test declares the CPU it needs at its
# busiest, and ctest starts a test only while the declared CPU of the tests
# running fits the machine. Most daemon and fleet tests spend their time
# waiting on timers, retransmissions and round deadlines (a quarter of a
# core or less, measured), so they overlap; CPU-bound tests never ask for
# more than there is (docs/architecture.md, "Tests at once").
#
# The budget is ctest's resource "cpu" in hundredths of a core: the build
# writes test_resources.json (100 per core of the machine that builds, where
# the tests of every preset run, the cross ones under QEMU), the test presets
# read it, and scripts/test and scripts/test-targets run ctest with
# -j 4 x nproc. Without the file (ctest run by hand with --test-dir) the
# declarations are ignored and -j alone decides.
cmake_host_system_information(RESULT _edgeadmm_cores QUERY NUMBER_OF_LOGICAL_CORES)
math(EXPR EDGEADMM_TEST_CPU_SLOTS "${_edgeadmm_cores} * 100")
file(WRITE "${PROJECT_BINARY_DIR}/test_resources.json"
  "{\"version\": {\"major\": 1, \"minor\": 0},\n"
  " \"local\": [{\"cpu\": [{\"id\": \"0\", \"slots\": ${EDGEADMM_TEST_CPU_SLOTS}}]}]}\n")

# edgeadmm_test_cpu(name percent [SANITIZED percent] [SECONDS s]
#                   [SANITIZED_SECONDS s]): test `name` needs `percent`
# hundredths of a core at its busiest (25: it mostly waits; 100: one core;
# 200: both cores of a 2-core machine; capped at the machine's cores);
# SANITIZED: what it needs in a sanitizer build, where the same work costs
# more CPU. SECONDS, its wall time measured in host-release (SANITIZED_SECONDS
# in host-asan), starts long tests first on a clone without ctest's timing
# history (ctest's COST), so that no long test is left to run alone at the
# end. FIRST starts the test before all others but fixture setups (which
# declare a quarter core, leaving room beside them): ctest starts whatever
# fits, so a test that needs most of the machine would otherwise wait until
# nothing else runs, at the end, and run there alone. A name that is not a
# test of this folder (one its conditions left out) is skipped.
# edgeadmm_test_env declares one core for a test that declares nothing.
function(edgeadmm_test_cpu name percent)
  cmake_parse_arguments(T "FIRST" "SANITIZED;SECONDS;SANITIZED_SECONDS" "" ${ARGN})
  if(NOT TEST ${name})
    return()
  endif()
  if(EDGEADMM_SANITIZE AND T_SANITIZED)
    set(percent ${T_SANITIZED})
  endif()
  if(EDGEADMM_SANITIZE AND T_SANITIZED_SECONDS)
    set(T_SECONDS ${T_SANITIZED_SECONDS})
  endif()
  if(NOT percent MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "edgeadmm_test_cpu(${name}): percent '${percent}' is not a positive integer")
  endif()
  if(DEFINED EDGEADMM_TEST_CPU_SLOTS AND percent GREATER EDGEADMM_TEST_CPU_SLOTS)
    set(percent ${EDGEADMM_TEST_CPU_SLOTS})
  endif()
  set_tests_properties(${name} PROPERTIES RESOURCE_GROUPS "cpu:${percent}")
  if(T_FIRST)
    math(EXPR T_SECONDS "100000 + 0${T_SECONDS}")
  endif()
  if(T_SECONDS)
    set_tests_properties(${name} PROPERTIES COST ${T_SECONDS})
  endif()
endfunction()
