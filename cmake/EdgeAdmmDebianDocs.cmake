# Files Debian policy asks of every binary package, for the four CPack
# packages (included by EdgeAdmmInstall.cmake before CPack):
#   /usr/share/doc/<package>/copyright      aggregator/debian/copyright
#   /usr/share/doc/<package>/changelog.gz   aggregator/debian/changelog.in,
#                                           gzip -9n (no name, no time)
#   /usr/share/lintian/overrides/<package>  aggregator/debian/lintian-overrides,
#                                           each override justified there
# The maintainer is EDGEADMM_DEB_MAINTAINER (a packager sets their own).
set(EDGEADMM_DEB_MAINTAINER
  "EdgeADMM maintainers <maintainers@users.noreply.a-seed-8985535f.example>"
  CACHE STRING "Maintainer field of the Debian packages")
set(CPACK_PACKAGE_CONTACT "${EDGEADMM_DEB_MAINTAINER}")
find_program(EDGEADMM_GZIP gzip REQUIRED)
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(_debian ${PROJECT_SOURCE_DIR}/aggregator/debian)
foreach(_pair gateway:edgeadmm device:edgeadmm-device fleet:edgeadmm-fleet
    sdk:libedgeadmm-sdk-dev)
  string(REPLACE ":" ";" _pair "${_pair}")
  list(GET _pair 0 _component)
  list(GET _pair 1 PACKAGE)
  set(_out ${PROJECT_BINARY_DIR}/debian/${PACKAGE})
  set(VERSION ${PROJECT_VERSION})
  set(MAINTAINER "${EDGEADMM_DEB_MAINTAINER}")
  set(DATE "${_date}")
  configure_file(${_debian}/changelog.in ${_out}/changelog @ONLY)
  execute_process(COMMAND ${EDGEADMM_GZIP} -9nc ${_out}/changelog
    OUTPUT_FILE ${_out}/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
  install(FILES ${_debian}/copyright ${_out}/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${PACKAGE}
    COMPONENT ${_component})
  if(EXISTS ${_debian}/lintian-overrides/${PACKAGE})
    install(FILES ${_debian}/lintian-overrides/${PACKAGE}
      DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
      COMPONENT ${_component})
  endif()
endforeach()
