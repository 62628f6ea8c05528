# What `cmake --install` puts under the prefix (docs/porting.md, "Using the
# SDK in your firmware"; docs/aggregator.md, "Installing the gateway"):
#   the device SDK as a CMake package (EdgeADMMConfig.cmake, components sdk,
#   platform_posix, dtls) and a pkg-config file (edgeadmm-sdk.pc), static
#   libraries and public headers, from a hosted (non-cross) build;
#   the operator's programs, systemd unit, example config and job files and
#   docs, when the aggregator is built.
# Bare-metal builds install the SDK package for firmware
# (EdgeAdmmInstallBareMetal.cmake); other cross builds (aarch64, armhf)
# install the programs only.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
# The unit's Documentation= names /usr/share/doc/edgeadmm (lower case, not
# GNUInstallDirs' DOCDIR of share/doc/EdgeADMM).
set(EDGEADMM_INSTALL_DOCDIR "${CMAKE_INSTALL_DATADIR}/doc/edgeadmm")

set(EDGEADMM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/EdgeADMM")

# EdgeADMMConfig.cmake from cmake/install/<template> (it reads
# EDGEADMM_PACKAGE_COMPONENTS), the version file (same major.minor
# accepted), both installed with component sdk.
function(edgeadmm_install_package_config template)
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/install/${template}
    ${PROJECT_BINARY_DIR}/install/EdgeADMMConfig.cmake
    INSTALL_DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR})
  write_basic_package_version_file(
    ${PROJECT_BINARY_DIR}/install/EdgeADMMConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/install/EdgeADMMConfig.cmake
    ${PROJECT_BINARY_DIR}/install/EdgeADMMConfigVersion.cmake
    DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR} COMPONENT sdk)
endfunction()

if(EDGEADMM_BARE_METAL)
  include(EdgeAdmmInstallBareMetal)
  return()
endif()

if(NOT CMAKE_CROSSCOMPILING AND NOT EDGEADMM_BARE_METAL)
  # Component sdk: the SDK, the nanopb-generated wire structs it includes.
  set_target_properties(edgeadmm_sdk PROPERTIES EXPORT_NAME sdk)
  set_target_properties(edgeadmm_proto PROPERTIES EXPORT_NAME proto)
  install(TARGETS edgeadmm_sdk edgeadmm_proto EXPORT EdgeADMMSdkTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/edgeadmm
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
  install(FILES ${PROJECT_BINARY_DIR}/proto/generated/edgeadmm.pb.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
  install(EXPORT EdgeADMMSdkTargets NAMESPACE EdgeADMM::
    DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR} COMPONENT sdk)
  set(_edgeadmm_components sdk)

  # Component platform_posix: getrandom entropy, file storage, UDP link,
  # the libcoap DTLS transport and the stderr/abort hooks, in one target.
  if(TARGET edgeadmm_posix_coap)
    add_library(edgeadmm_platform_posix INTERFACE)
    add_library(edgeadmm::platform_posix ALIAS edgeadmm_platform_posix)
    # The SDK's objects call edgeadmm_panic/edgeadmm_log, and the hooks
    # library depends on the SDK, so CMake orders it before the SDK on the
    # link line: linked whole, its two objects are there whatever the order.
    target_link_libraries(edgeadmm_platform_posix INTERFACE
      edgeadmm_posix_coap edgeadmm_posix_system edgeadmm_sdk
      "$<LINK_LIBRARY:WHOLE_ARCHIVE,$<BUILD_INTERFACE:edgeadmm_posix_hooks>$<INSTALL_INTERFACE:EdgeADMM::posix_hooks>>")
    set_target_properties(edgeadmm_posix_system PROPERTIES EXPORT_NAME posix_system)
    set_target_properties(edgeadmm_posix_coap PROPERTIES EXPORT_NAME posix_coap)
    set_target_properties(edgeadmm_posix_hooks PROPERTIES EXPORT_NAME posix_hooks)
    set_target_properties(edgeadmm_platform_posix PROPERTIES
      EXPORT_NAME platform_posix)
    install(TARGETS edgeadmm_posix_system edgeadmm_posix_coap
      edgeadmm_posix_hooks edgeadmm_platform_posix
      EXPORT EdgeADMMPlatformPosixTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk
      INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/posix/system/include/edgeadmm
      ${PROJECT_SOURCE_DIR}/platform/posix/coap/include/edgeadmm
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
    install(EXPORT EdgeADMMPlatformPosixTargets NAMESPACE EdgeADMM::
      DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR} COMPONENT sdk)
    list(APPEND _edgeadmm_components platform_posix)
  endif()

  # Component dtls: the SDK's own DTLS-PSK DatagramLink on Mbed TLS.
  if(TARGET edgeadmm_dtls)
    set_target_properties(edgeadmm_dtls PROPERTIES EXPORT_NAME dtls)
    install(TARGETS edgeadmm_dtls EXPORT EdgeADMMDtlsTargets
      ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk
      INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/platform/dtls/include/edgeadmm
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
    install(EXPORT EdgeADMMDtlsTargets NAMESPACE EdgeADMM::
      DESTINATION ${EDGEADMM_INSTALL_CMAKEDIR} COMPONENT sdk)
    list(APPEND _edgeadmm_components dtls)
  endif()

  set(EDGEADMM_PACKAGE_COMPONENTS ${_edgeadmm_components})
  edgeadmm_install_package_config(EdgeADMMConfig.cmake.in)

  # pkg-config (Linux): the SDK with its POSIX port, static.
  if(TARGET edgeadmm_posix_coap)
    file(RELATIVE_PATH EDGEADMM_PC_TO_PREFIX
      "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
    configure_file(${PROJECT_SOURCE_DIR}/cmake/install/edgeadmm-sdk.pc.in
      ${PROJECT_BINARY_DIR}/install/edgeadmm-sdk.pc @ONLY)
    install(FILES ${PROJECT_BINARY_DIR}/install/edgeadmm-sdk.pc
      DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT sdk)
  endif()
endif()

# The operator's side: the admin CLI beside the daemon, the systemd unit, the
# example daemon config and job files, the docs the unit names.
if(EDGEADMM_BUILD_AGGREGATOR AND TARGET edgeadmm)
  install(TARGETS edgeadmm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    COMPONENT gateway)
  install(FILES ${PROJECT_SOURCE_DIR}/aggregator/systemd/edgeadmm-aggregatord.service
    DESTINATION lib/systemd/system COMPONENT gateway)
  install(FILES ${PROJECT_SOURCE_DIR}/aggregator/systemd/aggregatord.toml
    DESTINATION ${EDGEADMM_INSTALL_DOCDIR}/examples COMPONENT gateway)
  # The copy the Debian postinst puts in /etc/edgeadmm (share/doc may be
  # excluded by dpkg's path-exclude on small systems).
  install(FILES ${PROJECT_SOURCE_DIR}/aggregator/systemd/aggregatord.toml
    DESTINATION ${CMAKE_INSTALL_DATADIR}/edgeadmm COMPONENT gateway)
  # The fleet tool (load and end-to-end tests of a gateway), its own package.
  if(TARGET edgeadmm-fleet)
    install(TARGETS edgeadmm-fleet RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
      COMPONENT fleet)
  endif()
  # Man pages from the --help texts (native builds: the programs run here).
  if(NOT CMAKE_CROSSCOMPILING AND EDGEADMM_SYSTEM_PYTHON
     AND TARGET edgeadmm-device AND TARGET edgeadmm-fleet)
    set(_man_dir ${PROJECT_BINARY_DIR}/man)
    set(_man_script ${PROJECT_SOURCE_DIR}/cmake/install/help_to_man.py)
    set(_man_pages)
    foreach(_page
        "edgeadmm|1|administer EdgeADMM devices, jobs and privacy budgets|data,devices,job,privacy"
        "edgeadmm-aggregatord|8|the EdgeADMM aggregator daemon|"
        "edgeadmm-device|1|one EdgeADMM device on Linux|"
        "edgeadmm-fleet|1|many virtual EdgeADMM devices in one process (testing)|run,handshakes,connect")
      string(REPLACE "|" ";" _fields "${_page}")
      list(GET _fields 0 _name)
      list(GET _fields 1 _section)
      list(GET _fields 2 _summary)
      list(GET _fields 3 _subs)
      string(REPLACE "," ";" _subs "${_subs}")
      set(_out ${_man_dir}/${_name}.${_section}.gz)
      add_custom_command(OUTPUT ${_out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${_man_dir}
        COMMAND ${EDGEADMM_SYSTEM_PYTHON} ${_man_script}
          --program $<TARGET_FILE:${_name}> --name ${_name}
          --section ${_section} --version ${PROJECT_VERSION}
          --summary "${_summary}" --out ${_out} --subcommands ${_subs}
        DEPENDS ${_name} ${_man_script}
        COMMENT "man page ${_name}(${_section})"
        VERBATIM)
      list(APPEND _man_pages ${_out})
      set(_component gateway)
      if(_name STREQUAL "edgeadmm-device")
        set(_component device)
      elseif(_name STREQUAL "edgeadmm-fleet")
        set(_component fleet)
      endif()
      install(FILES ${_out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${_section}
        COMPONENT ${_component})
    endforeach()
    add_custom_target(edgeadmm_man_pages ALL DEPENDS ${_man_pages})
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/jobs
    DESTINATION ${EDGEADMM_INSTALL_DOCDIR}/examples
    COMPONENT gateway FILES_MATCHING PATTERN "*.toml")
  install(FILES ${PROJECT_SOURCE_DIR}/docs/aggregator.md
    ${PROJECT_SOURCE_DIR}/docs/device.md ${PROJECT_SOURCE_DIR}/docs/privacy.md
    ${PROJECT_SOURCE_DIR}/docs/security.md ${PROJECT_SOURCE_DIR}/docs/porting.md
    ${PROJECT_SOURCE_DIR}/docs/sdk.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
    DESTINATION ${EDGEADMM_INSTALL_DOCDIR} COMPONENT gateway)
endif()

# Debian packages (CPack DEB, `cpack -G DEB` in the build directory), one per
# install component:
#   edgeadmm             gateway: daemon, admin CLI, unit, example config and
#                        jobs, docs
#   edgeadmm-device      the Linux device program
#   edgeadmm-fleet       the fleet tool, for testing a gateway
#   libedgeadmm-sdk-dev  the SDK package (headers, static libraries, CMake and
#                        pkg-config files)
# Shared-library dependencies of the programs come from dpkg-shlibdeps; the
# SDK's are the -dev packages its headers and libraries need.
# The gateway's maintainer scripts (aggregator/debian) create the edgeadmm
# user, /var/lib/edgeadmm (0700) and /etc/edgeadmm/aggregatord.toml, and on
# purge keep the database unless EDGEADMM_PURGE_DATA=yes.
if(NOT CMAKE_CROSSCOMPILING AND EDGEADMM_BUILD_AGGREGATOR AND TARGET edgeadmm)
  set(CPACK_GENERATOR DEB)
  set(CPACK_PACKAGE_NAME edgeadmm)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGE_VENDOR "EdgeADMM")
  include(EdgeAdmmDebianDocs)  # copyright, changelog.gz, lintian overrides
  # No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would put it before each
  # package's own synopsis (the first line of its description below).
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_COMPONENTS_ALL gateway device fleet sdk)
  set(CPACK_DEB_COMPONENT_INSTALL ON)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION net)
  set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_STRIP_FILES ON)  # the programs; install() never strips static libraries
  set(CPACK_DEBIAN_GATEWAY_PACKAGE_NAME edgeadmm)
  set(CPACK_DEBIAN_GATEWAY_DESCRIPTION "private federated ADMM gateway: aggregator daemon, admin CLI
The aggregator daemon serves private federated ADMM jobs to enrolled
devices over CoAP/DTLS-PSK; the admin CLI edgeadmm manages devices, jobs
and privacy budgets. With the systemd unit, an example config and jobs,
and the docs.")
  set(CPACK_DEBIAN_GATEWAY_PACKAGE_DEPENDS "adduser")
  set(CPACK_DEBIAN_GATEWAY_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/aggregator/debian/postinst
    ${PROJECT_SOURCE_DIR}/aggregator/debian/prerm
    ${PROJECT_SOURCE_DIR}/aggregator/debian/postrm)
  set(CPACK_DEBIAN_GATEWAY_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
  set(CPACK_DEBIAN_DEVICE_PACKAGE_NAME edgeadmm-device)
  set(CPACK_DEBIAN_DEVICE_DESCRIPTION "EdgeADMM device for Linux
One device of an EdgeADMM job: trains on its local data and uploads to
the gateway over CoAP/DTLS-PSK, its state in files.")
  set(CPACK_DEBIAN_FLEET_PACKAGE_NAME edgeadmm-fleet)
  set(CPACK_DEBIAN_FLEET_DESCRIPTION "EdgeADMM fleet tool for testing a gateway
Many virtual devices in one process, against an in-process aggregator or
the daemon over CoAP/DTLS-PSK, and a DTLS handshake benchmark.")
  set(CPACK_DEBIAN_SDK_PACKAGE_NAME libedgeadmm-sdk-dev)
  set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS
    "libeigen3-dev (>= 3.3), libnanopb-dev, libmbedtls-dev, libcoap3-dev, libssl-dev, pkg-config")
  set(CPACK_DEBIAN_SDK_DESCRIPTION "EdgeADMM device SDK (static libraries and headers)
The device SDK with its POSIX and DTLS ports, for find_package(EdgeADMM)
or pkg-config edgeadmm-sdk.")
  include(CPack)
endif()
