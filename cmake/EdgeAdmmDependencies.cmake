# Third-party dependencies, all from Debian packages (scripts/setup installs
# them). Cross builds that cannot use multiarch packages build Mbed TLS and the
# nanopb runtime from Debian source packages (see cmake/DebianSource.cmake).

# Cross builds define some of the targets below first (cmake/CrossDependencies.cmake).
if(CMAKE_CROSSCOMPILING)
  include(CrossDependencies)
endif()

# Eigen: header-only, included as a system header so its warnings stay out.
if(NOT TARGET Eigen3::Eigen)
  find_package(Eigen3 3.3 REQUIRED NO_MODULE)
endif()

# Mbed TLS (crypto part: CTR_DRBG, SHA-256, AES).
if(NOT TARGET edgeadmm::mbedcrypto)
  find_path(MBEDTLS_INCLUDE_DIR mbedtls/ctr_drbg.h)
  find_library(MBEDCRYPTO_LIBRARY mbedcrypto)
  if(NOT MBEDTLS_INCLUDE_DIR OR NOT MBEDCRYPTO_LIBRARY)
    message(FATAL_ERROR "Mbed TLS not found: run scripts/setup (libmbedtls-dev)")
  endif()
  add_library(edgeadmm::mbedcrypto UNKNOWN IMPORTED)
  set_target_properties(edgeadmm::mbedcrypto PROPERTIES
    IMPORTED_LOCATION "${MBEDCRYPTO_LIBRARY}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${MBEDTLS_INCLUDE_DIR}")
endif()

if(NOT EDGEADMM_BARE_METAL)
  find_package(Threads REQUIRED)
  if(EDGEADMM_BUILD_TESTS AND NOT TARGET GTest::gtest)
    find_package(GTest REQUIRED)
  endif()
  if(EDGEADMM_BUILD_BENCHMARKS)
    find_package(benchmark QUIET)
    if(NOT benchmark_FOUND)
      message(STATUS "Google Benchmark not found: benchmarks disabled")
      set(EDGEADMM_BUILD_BENCHMARKS OFF)
    endif()
  endif()
endif()

# Python with Debian's modules (mpmath, matplotlib): always the system one, not
# a user-installed interpreter that lacks them.
find_program(EDGEADMM_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
