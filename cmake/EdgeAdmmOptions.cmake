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
