# Dependencies of cross builds (included by EdgeAdmmDependencies.cmake when
# CMAKE_CROSSCOMPILING). Defines the targets the rest of the build expects, so
# the host lookups that follow are skipped:
#   Eigen3::Eigen        the build host's header-only Eigen (/usr/include/eigen3);
#                        on bare metal with eigen_assert routed to the panic hook
#   edgeadmm::mbedcrypto Mbed TLS crypto: from the Debian source package with
#                        cmake/deps/mbedtls_config.h when
#                        EDGEADMM_DEPS_FROM_SOURCE (Cortex-M, armhf); else the
#                        multiarch package found by EdgeAdmmDependencies (aarch64)
#   nanopb::runtime      the nanopb runtime from the Debian source package
#                        (proto/CMakeLists.txt links it)
#   liblzma              xz-utils from its Debian source (from-source Linux targets)
#   GTest::gtest, GTest::gtest_main, GTest::gmock (hosted targets with tests):
#                        built from /usr/src/googletest (Debian's googletest)
include(DebianSource)

# pkg-config must describe the target, not the build host: multiarch .pc files
# of the target architecture only (none exist for a from-source target).
if(NOT EDGEADMM_BARE_METAL AND CMAKE_LIBRARY_ARCHITECTURE)
  set(ENV{PKG_CONFIG_LIBDIR}
    "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pkgconfig:/usr/share/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
endif()

if(EDGEADMM_BARE_METAL OR CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(_deps_from_source ON)
else()
  set(_deps_from_source OFF)
endif()
option(EDGEADMM_DEPS_FROM_SOURCE
  "Build Mbed TLS from its Debian source package instead of using a multiarch package"
  ${_deps_from_source})

# Eigen is header-only and architecture independent.
if(NOT TARGET Eigen3::Eigen)
  find_path(EDGEADMM_EIGEN_INCLUDE_DIR Eigen/Core PATHS /usr/include/eigen3
    NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(NOT EDGEADMM_EIGEN_INCLUDE_DIR)
    message(FATAL_ERROR "Eigen not found in /usr/include/eigen3: run scripts/setup")
  endif()
  add_library(Eigen3::Eigen INTERFACE IMPORTED)
  set_target_properties(Eigen3::Eigen PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${EDGEADMM_EIGEN_INCLUDE_DIR}")
endif()
if(EDGEADMM_BARE_METAL)
  # eigen_assert -> edgeadmm_panic even with NDEBUG (see the header).
  set_property(TARGET Eigen3::Eigen APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
    "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${CMAKE_CURRENT_LIST_DIR}/deps/eigen_device_config.h>")
endif()

# Third-party C code: compiled with the toolchain's CPU flags and our size
# options, without the project's warning set.
function(_edgeadmm_third_party_options target)
  target_compile_options(${target} PRIVATE -w)
  if(NOT EDGEADMM_BARE_METAL)  # may end up in shared objects; never on an MCU
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
endfunction()

if(EDGEADMM_DEPS_FROM_SOURCE AND NOT TARGET edgeadmm::mbedcrypto)
  edgeadmm_debian_source(PACKAGE mbedtls OUT_DIR _mbedtls_src)
  set(_lib "${_mbedtls_src}/library")
  add_library(edgeadmm_mbedcrypto STATIC
    ${_lib}/aes.c ${_lib}/ccm.c ${_lib}/cipher.c ${_lib}/cipher_wrap.c
    ${_lib}/constant_time.c ${_lib}/ctr_drbg.c ${_lib}/hmac_drbg.c ${_lib}/md.c
    ${_lib}/memory_buffer_alloc.c ${_lib}/platform.c ${_lib}/platform_util.c
    ${_lib}/sha256.c)
  add_library(edgeadmm::mbedcrypto ALIAS edgeadmm_mbedcrypto)
  target_include_directories(edgeadmm_mbedcrypto SYSTEM PUBLIC
    "${_mbedtls_src}/include" "${CMAKE_CURRENT_LIST_DIR}/deps")
  target_compile_definitions(edgeadmm_mbedcrypto PUBLIC
    "MBEDTLS_CONFIG_FILE=\"mbedtls_config.h\"")
  _edgeadmm_third_party_options(edgeadmm_mbedcrypto)
endif()

if(NOT TARGET nanopb::runtime)
  edgeadmm_debian_source(PACKAGE nanopb OUT_DIR _nanopb_src)
  add_library(edgeadmm_nanopb STATIC "${_nanopb_src}/pb_common.c"
    "${_nanopb_src}/pb_encode.c" "${_nanopb_src}/pb_decode.c")
  add_library(nanopb::runtime ALIAS edgeadmm_nanopb)
  target_include_directories(edgeadmm_nanopb SYSTEM PUBLIC "${_nanopb_src}")
  _edgeadmm_third_party_options(edgeadmm_nanopb)
endif()

# liblzma (platform/posix/dataio reads .xz data sets) for a from-source Linux
# target: xz-utils' own CMake build, handed to the find_* results dataio uses.
if(EDGEADMM_DEPS_FROM_SOURCE AND NOT EDGEADMM_BARE_METAL AND NOT TARGET liblzma)
  edgeadmm_debian_source(PACKAGE xz-utils OUT_DIR _xz_src)
  set(BUILD_SHARED_LIBS OFF)
  set(BUILD_TESTING OFF)  # xz's own tests stay out of our ctest
  set(CREATE_XZ_SYMLINKS OFF CACHE BOOL "" FORCE)
  set(CREATE_LZMA_SYMLINKS OFF CACHE BOOL "" FORCE)
  add_subdirectory("${_xz_src}" "${CMAKE_BINARY_DIR}/_xz" EXCLUDE_FROM_ALL SYSTEM)
  unset(BUILD_TESTING)
  unset(BUILD_SHARED_LIBS)
  target_compile_options(liblzma PRIVATE -w)
  set(LZMA_INCLUDE_DIR "${_xz_src}/src/liblzma/api" CACHE PATH "" FORCE)
  set(LZMA_LIBRARY liblzma CACHE STRING "" FORCE)
endif()

if(NOT EDGEADMM_BARE_METAL AND EDGEADMM_BUILD_TESTS AND NOT TARGET GTest::gtest)
  set(BUILD_GMOCK ON CACHE BOOL "" FORCE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  add_subdirectory(/usr/src/googletest "${CMAKE_BINARY_DIR}/_googletest"
    EXCLUDE_FROM_ALL SYSTEM)
  foreach(_gtest_lib gtest gtest_main gmock gmock_main)
    target_compile_options(${_gtest_lib} PRIVATE -w)
    if(NOT TARGET GTest::${_gtest_lib})
      add_library(GTest::${_gtest_lib} ALIAS ${_gtest_lib})
    endif()
  endforeach()
endif()
