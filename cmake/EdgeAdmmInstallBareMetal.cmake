# What `cmake --install` puts under the prefix from a bare-metal build (the
# cortex-m4f presets; docs/porting.md, "The bare-metal package"): the device
# SDK as a CMake package for firmware built with the same toolchain file.
# Included by EdgeAdmmInstall.cmake when EDGEADMM_BARE_METAL.
#   component sdk                EdgeADMM::sdk, EdgeADMM::proto, and the
#                                third-party builds the SDK was compiled and
#                                sized against: EdgeADMM::mbedcrypto (Mbed TLS
#                                with cmake/deps/mbedtls_config.h),
#                                EdgeADMM::nanopb (runtime, PB_NO_ERRMSG)
#   component platform_baremetal EdgeADMM::platform_baremetal: the bare-metal
#                                port (Format, semihosting, FlashStorage),
#                                the board interface headers, and the hooks
#                                every image links (C++ runtime, snprintf,
#                                edgeadmm_log/edgeadmm_panic on the board's
#                                console)
#   component dtls               EdgeADMM::dtls (DTLS-PSK on Mbed TLS, static pool)
#   component lwip               EdgeADMM::lwip / EdgeADMM::lwip_static (the
#                                UDP link and network bring-up on lwIP 2.1
#                                with cmake/deps/lwip, with / without DHCP)
#   component board              the reference board EDGEADMM_BOARD (for QEMU
#                                evaluation, UNSAFE fixed entropy seed):
#                                EdgeADMM::board (startup, linker script,
#                                board services), EdgeADMM::board_ethernet
#                                (LAN9118). A product brings its own board.
# The third-party headers go under include/edgeadmm/third_party/, their
# Debian copyright files under share/doc/edgeadmm/third_party/.
# Without --prefix: not /usr/local (Arm libraries among the host's).
if(CMAKE_INSTALL_PREFIX_INITIALIZED_TO_DEFAULT)
  set(CMAKE_INSTALL_PREFIX "/opt/edgeadmm-${CMAKE_SYSTEM_PROCESSOR}"
    CACHE PATH "Install prefix of the bare-metal SDK package" FORCE)
endif()
set(_third_party_inc ${CMAKE_INSTALL_INCLUDEDIR}/edgeadmm/third_party)
set(_third_party_doc ${CMAKE_INSTALL_DATADIR}/doc/edgeadmm/third_party)
set(_objects ${CMAKE_INSTALL_LIBDIR}/edgeadmm/objects)

# Installs `targets` (static or object libraries) as export set `set` of
# component `component`, their objects in lib/edgeadmm/objects.
function(_edgeadmm_install_set set component)
  install(TARGETS ${ARGN} EXPORT ${set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${component}
    OBJECTS DESTINATION ${_objects} COMPONENT ${component}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ${set} NAMESPACE EdgeADMM::
    DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR} COMPONENT ${component})
endfunction()

# A third-party build's headers (its include dir under _third_party_inc/name)
# and its Debian copyright file.
function(_edgeadmm_install_third_party target name source_dir)
  target_include_directories(${target} SYSTEM INTERFACE
    "$<INSTALL_INTERFACE:${_third_party_inc}/${name}>")
  install(FILES ${source_dir}/debian/copyright
    DESTINATION ${_third_party_doc}/${name} COMPONENT sdk)
endfunction()

# sdk: the SDK, its wire structs, Mbed TLS and the nanopb runtime.
set_target_properties(edgeadmm_sdk PROPERTIES EXPORT_NAME sdk)
set_target_properties(edgeadmm_proto PROPERTIES EXPORT_NAME proto)
set_target_properties(edgeadmm_mbedcrypto PROPERTIES EXPORT_NAME mbedcrypto)
set_target_properties(edgeadmm_nanopb PROPERTIES EXPORT_NAME nanopb)
_edgeadmm_install_third_party(edgeadmm_mbedcrypto mbedtls "${_mbedtls_src}")
_edgeadmm_install_third_party(edgeadmm_nanopb nanopb "${_nanopb_src}")
install(DIRECTORY ${_mbedtls_src}/include/
  DESTINATION ${_third_party_inc}/mbedtls COMPONENT sdk)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/deps/mbedtls_config.h
  ${PROJECT_SOURCE_DIR}/cmake/deps/mbedtls_config_sdk_crypto.h
  DESTINATION ${_third_party_inc}/mbedtls COMPONENT sdk)
install(FILES ${_nanopb_src}/pb.h ${_nanopb_src}/pb_common.h
  ${_nanopb_src}/pb_encode.h ${_nanopb_src}/pb_decode.h
  DESTINATION ${_third_party_inc}/nanopb COMPONENT sdk)
install(FILES ${PROJECT_SOURCE_DIR}/cmake/deps/eigen_device_config.h
  DESTINATION ${_third_party_inc}/eigen COMPONENT sdk)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/edgeadmm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
install(FILES ${PROJECT_BINARY_DIR}/proto/generated/edgeadmm.pb.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
_edgeadmm_install_set(EdgeADMMSdkTargets sdk edgeadmm_sdk edgeadmm_proto
  edgeadmm_mbedcrypto edgeadmm_nanopb)
set(_components sdk)

# platform_baremetal: the port, the board interface and the hooks. The
# hooks are object libraries (link order never matters); the interface
# target carries their objects to every image that links it.
add_library(edgeadmm_platform_baremetal INTERFACE)
target_link_libraries(edgeadmm_platform_baremetal INTERFACE
  edgeadmm_baremetal edgeadmm_board_interface
  "$<BUILD_INTERFACE:$<TARGET_OBJECTS:edgeadmm_baremetal_hooks>>"
  "$<BUILD_INTERFACE:$<TARGET_OBJECTS:edgeadmm_board_hooks>>"
  "$<INSTALL_INTERFACE:$<TARGET_OBJECTS:EdgeADMM::baremetal_hooks>>"
  "$<INSTALL_INTERFACE:$<TARGET_OBJECTS:EdgeADMM::board_hooks>>")
foreach(_t baremetal baremetal_hooks board_interface board_hooks
    platform_baremetal)
  set_target_properties(edgeadmm_${_t} PROPERTIES EXPORT_NAME ${_t})
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/baremetal/include/edgeadmm
  ${PROJECT_SOURCE_DIR}/platform/boards/interface/include/edgeadmm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT platform_baremetal)
_edgeadmm_install_set(EdgeADMMPlatformBaremetalTargets platform_baremetal
  edgeadmm_baremetal edgeadmm_baremetal_hooks edgeadmm_board_interface
  edgeadmm_board_hooks edgeadmm_platform_baremetal)
list(APPEND _components platform_baremetal)

if(TARGET edgeadmm_dtls)
  set_target_properties(edgeadmm_dtls PROPERTIES EXPORT_NAME dtls)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/dtls/include/edgeadmm
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dtls)
  _edgeadmm_install_set(EdgeADMMDtlsTargets dtls edgeadmm_dtls)
  list(APPEND _components dtls)
endif()

if(TARGET edgeadmm_lwip_port)
  set_target_properties(edgeadmm_lwip_port PROPERTIES EXPORT_NAME lwip)
  set_target_properties(edgeadmm_lwip_port_static PROPERTIES
    EXPORT_NAME lwip_static)
  set_target_properties(edgeadmm_lwip PROPERTIES EXPORT_NAME lwip_core)
  set_target_properties(edgeadmm_lwip_static PROPERTIES
    EXPORT_NAME lwip_core_static)
  _edgeadmm_install_third_party(edgeadmm_lwip lwip "${_lwip_src}")
  target_include_directories(edgeadmm_lwip_static SYSTEM INTERFACE
    "$<INSTALL_INTERFACE:${_third_party_inc}/lwip>")
  install(DIRECTORY ${_lwip_src}/src/include/
    ${PROJECT_SOURCE_DIR}/cmake/deps/lwip/
    DESTINATION ${_third_party_inc}/lwip COMPONENT lwip)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/lwip/include/edgeadmm
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT lwip)
  _edgeadmm_install_set(EdgeADMMLwipTargets lwip edgeadmm_lwip_port
    edgeadmm_lwip_port_static edgeadmm_lwip edgeadmm_lwip_static)
  list(APPEND _components lwip)
endif()

# board: the reference board (its startup and board services are an object
# library; its linker script under share/edgeadmm/boards/<name>/).
set(_board edgeadmm_board_${EDGEADMM_BOARD})
set_target_properties(${_board} PROPERTIES EXPORT_NAME board)
set_target_properties(edgeadmm_seeded_entropy PROPERTIES
  EXPORT_NAME seeded_entropy)
set(_board_targets ${_board} edgeadmm_seeded_entropy)
if(TARGET edgeadmm_board_ethernet)
  set_target_properties(edgeadmm_board_ethernet PROPERTIES
    EXPORT_NAME board_ethernet)
  list(APPEND _board_targets edgeadmm_board_ethernet)
endif()
get_target_property(_script ${_board} EDGEADMM_LINKER_SCRIPT)
install(FILES ${_script}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/edgeadmm/boards/${EDGEADMM_BOARD}
  COMPONENT board)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/seeded_entropy/include/edgeadmm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT board)
_edgeadmm_install_set(EdgeADMMBoardTargets board ${_board_targets})
list(APPEND _components board)

set(EDGEADMM_PACKAGE_COMPONENTS ${_components})
edgeadmm_install_package_config(EdgeADMMBareMetalConfig.cmake.in)
