# Build switches. Defaults depend on whether we build for a hosted OS.
if(CMAKE_SYSTEM_NAME STREQUAL "Generic")
  set(EDGEADMM_BARE_METAL ON)
else()
  set(EDGEADMM_BARE_METAL OFF)
endif()

include(CMakeDependentOption)
option(EDGEADMM_BUILD_TESTS "Build the test suites" ON)
option(EDGEADMM_BUILD_BENCHMARKS "Build the Google Benchmark programs" ON)
cmake_dependent_option(EDGEADMM_BUILD_AGGREGATOR
  "Build the aggregator daemon and admin CLI (hosted targets only)" ON
  "NOT EDGEADMM_BARE_METAL" OFF)
option(EDGEADMM_WERROR "Treat warnings in project code as errors" ON)
set(EDGEADMM_SANITIZE "" CACHE STRING "Sanitizers for host builds, e.g. address;undefined")
set(EDGEADMM_DATA_DIR "${CMAKE_CURRENT_SOURCE_DIR}/../shared/data" CACHE PATH
  "Folder with a9a.xz, a9a.t.xz, adult.data.xz (tests read it; EDGEADMM_DATA overrides at run time)")
# The SDK's compute type (edgeadmm::Real, sdk/include/edgeadmm/real.h): double
# keeps hosted builds bit-identical to their goldens; the Cortex-M4F preset
# picks float because its FPU is single precision (issue 34).
set(EDGEADMM_REAL "double" CACHE STRING "SDK compute type: double or float")
set_property(CACHE EDGEADMM_REAL PROPERTY STRINGS double float)
if(NOT EDGEADMM_REAL MATCHES "^(double|float)$")
  message(FATAL_ERROR "EDGEADMM_REAL must be double or float, not '${EDGEADMM_REAL}'")
endif()
