# Dependencies of cross builds (included by EdgeAdmmDependencies.cmake when
# CMAKE_CROSSCOMPILING). Defines the targets the rest of the build expects, so
# the host lookups that follow are skipped:
#   Eigen3::Eigen        the build host's header-only Eigen (/usr/include/eigen3);
#                        on bare metal with eigen_assert routed to the panic hook
#   edgeadmm::mbedcrypto Mbed TLS from the Debian source package when
#                        EDGEADMM_DEPS_FROM_SOURCE: crypto + a DTLS-PSK client
#                        on a static pool with cmake/deps/mbedtls_config.h
#                        (Cortex-M), or crypto +
#                        DTLS-PSK with cmake/deps/mbedtls_config_dtls_client.h
#                        when EDGEADMM_COAP_FROM_SOURCE (armhf); else the
#                        multiarch package found by EdgeAdmmDependencies (aarch64)
#   libcoap::coap-3      libcoap 4.3.1 with the Mbed TLS backend, from its Debian
#                        source (EDGEADMM_COAP_FROM_SOURCE: armhf); the host and
#                        aarch64 use Debian's libcoap3-dev (OpenSSL backend)
#   nanopb::runtime      the nanopb runtime from the Debian source package
#   lwip::core           lwIP 2.1 from its Debian source (bare metal: raw UDP,
#                        IPv4, NO_SYS; cmake/deps/lwip holds its configuration)
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
# A hosted from-source target (armhf) also builds libcoap with the Mbed TLS
# backend for platform/posix/coap; its Mbed TLS then includes DTLS-PSK.
if(EDGEADMM_DEPS_FROM_SOURCE AND NOT EDGEADMM_BARE_METAL)
  set(_coap_from_source ON)
else()
  set(_coap_from_source OFF)
endif()
option(EDGEADMM_COAP_FROM_SOURCE
  "Build libcoap (Mbed TLS DTLS backend) and a DTLS-capable Mbed TLS from Debian source packages"
  ${_coap_from_source})

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
  # The modules the config enables (the SDK's crypto; + DTLS-PSK for libcoap).
  set(_modules aes ccm cipher cipher_wrap constant_time ctr_drbg hmac_drbg md
    platform platform_util sha256)
  if(EDGEADMM_COAP_FROM_SOURCE)
    # One Mbed TLS per program: the SDK and libcoap share this build.
    set(_config mbedtls_config_dtls_client.h)
    list(APPEND _modules asn1parse bignum debug ecp ecp_curves entropy
      entropy_poll error oid pk pk_wrap pkparse ssl_ciphersuites ssl_cli
      ssl_cookie ssl_msg ssl_srv ssl_tls timing version x509 x509_crt)
  else()
    # Cortex-M: + the DTLS-PSK client of platform/dtls (objects are linked
    # only by firmware that uses them).
    set(_config mbedtls_config.h)
    list(APPEND _modules memory_buffer_alloc ssl_ciphersuites ssl_cli ssl_msg
      ssl_tls)
  endif()
  list(TRANSFORM _modules PREPEND "${_mbedtls_src}/library/")
  list(TRANSFORM _modules APPEND ".c")
  add_library(edgeadmm_mbedcrypto STATIC ${_modules})
  add_library(edgeadmm::mbedcrypto ALIAS edgeadmm_mbedcrypto)
  target_include_directories(edgeadmm_mbedcrypto SYSTEM PUBLIC
    "$<BUILD_INTERFACE:${_mbedtls_src}/include;${CMAKE_CURRENT_LIST_DIR}/deps>")
  target_compile_definitions(edgeadmm_mbedcrypto PUBLIC
    "MBEDTLS_CONFIG_FILE=\"${_config}\"")
  _edgeadmm_third_party_options(edgeadmm_mbedcrypto)
endif()

# libcoap 4.3.1 (platform/posix/coap) with the Mbed TLS backend: libcoap's own
# CMake build of the Debian source, UDP only (no TCP/TLS), client and server
# (the armhf tests run an in-process DTLS server), no examples or docs.
if(EDGEADMM_COAP_FROM_SOURCE AND NOT TARGET libcoap::coap-3)
  edgeadmm_debian_source(PACKAGE libcoap3 OUT_DIR _coap_src)
  foreach(_on ENABLE_DTLS ENABLE_CLIENT_MODE ENABLE_SERVER_MODE WITH_EPOLL)
    set(${_on} ON CACHE BOOL "" FORCE)
  endforeach()
  foreach(_off ENABLE_TCP ENABLE_EXAMPLES ENABLE_DOCS ENABLE_TESTS)
    set(${_off} OFF CACHE BOOL "" FORCE)
  endforeach()
  set(DTLS_BACKEND mbedtls CACHE STRING "" FORCE)
  # libcoap's FindMbedTLS keeps these: our Mbed TLS build above.
  set(MBEDTLS_INCLUDE_DIRS "${_mbedtls_src}/include" CACHE PATH "" FORCE)
  foreach(_var MBEDTLS_LIBRARY MBEDX509_LIBRARY MBEDCRYPTO_LIBRARY)
    set(${_var} edgeadmm_mbedcrypto CACHE STRING "" FORCE)
  endforeach()
  # Its version string comes from `git describe` when that works: inside our
  # work tree it would name our commit (and change every compile line).
  set(ENV{GIT_DIR} "${CMAKE_BINARY_DIR}/_libcoap/no-git")
  set(BUILD_SHARED_LIBS OFF)
  set(CMAKE_POLICY_DEFAULT_CMP0077 NEW)  # its option()s keep the values above
  set(FPHSA_NAME_MISMATCHED ON)  # its FindMbedTLS names the package MBEDTLS
  add_subdirectory("${_coap_src}" "${CMAKE_BINARY_DIR}/_libcoap" EXCLUDE_FROM_ALL SYSTEM)
  unset(FPHSA_NAME_MISMATCHED)
  unset(CMAKE_POLICY_DEFAULT_CMP0077)
  unset(BUILD_SHARED_LIBS)
  unset(ENV{GIT_DIR})
  _edgeadmm_third_party_options(coap-3)
endif()

if(NOT TARGET nanopb::runtime)
  edgeadmm_debian_source(PACKAGE nanopb OUT_DIR _nanopb_src)
  add_library(edgeadmm_nanopb STATIC "${_nanopb_src}/pb_common.c"
    "${_nanopb_src}/pb_encode.c" "${_nanopb_src}/pb_decode.c")
  add_library(nanopb::runtime ALIAS edgeadmm_nanopb)
  target_include_directories(edgeadmm_nanopb SYSTEM PUBLIC
    "$<BUILD_INTERFACE:${_nanopb_src}>")
  # Bare metal: no error strings in the runtime (about 700 bytes of flash);
  # the wire helpers report status codes, never nanopb's messages. PUBLIC:
  # it changes the stream structs, so every user must see it.
  if(EDGEADMM_BARE_METAL)
    target_compile_definitions(edgeadmm_nanopb PUBLIC PB_NO_ERRMSG)
  endif()
  _edgeadmm_third_party_options(edgeadmm_nanopb)
endif()

# lwIP 2.1 (platform/lwip, bare metal only): NO_SYS, raw UDP over IPv4 with
# ARP, ICMP and DHCP, static pools; configured by cmake/deps/lwip/lwipopts.h
# and arch/cc.h. Only the core modules that configuration uses are compiled.
if(EDGEADMM_BARE_METAL AND NOT TARGET lwip::core)
  edgeadmm_debian_source(PACKAGE lwip OUT_DIR _lwip_src)
  set(_lwip_modules core/init.c core/def.c core/inet_chksum.c core/ip.c
    core/mem.c core/memp.c core/netif.c core/pbuf.c core/timeouts.c core/udp.c
    core/ipv4/etharp.c core/ipv4/icmp.c core/ipv4/ip4.c core/ipv4/ip4_addr.c
    core/ipv4/ip4_frag.c core/ipv4/dhcp.c netif/ethernet.c)
  list(TRANSFORM _lwip_modules PREPEND "${_lwip_src}/src/")
  add_library(edgeadmm_lwip STATIC ${_lwip_modules})
  add_library(lwip::core ALIAS edgeadmm_lwip)
  # The same stack without DHCP, for firmware with a static address only
  # (LWIP_DHCP 0 for lwIP and for every user of its headers).
  list(FILTER _lwip_modules EXCLUDE REGEX "dhcp\\.c$")
  add_library(edgeadmm_lwip_static STATIC ${_lwip_modules})
  add_library(lwip::core_static ALIAS edgeadmm_lwip_static)
  target_compile_definitions(edgeadmm_lwip_static PUBLIC LWIP_DHCP=0)
  foreach(_lwip edgeadmm_lwip edgeadmm_lwip_static)
    target_include_directories(${_lwip} SYSTEM PUBLIC
      "$<BUILD_INTERFACE:${_lwip_src}/src/include;${CMAKE_CURRENT_LIST_DIR}/deps/lwip>")
    _edgeadmm_third_party_options(${_lwip})
  endforeach()
endif()

# liblzma (dataio reads .xz data sets) for a from-source Linux
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
