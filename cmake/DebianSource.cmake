# Fetches Debian source packages into the build tree at configure time.
#
# No third-party source is committed: cross targets that cannot use multiarch
# packages (Cortex-M, armhf) build Mbed TLS and the nanopb runtime from the
# Debian source package of the release we build against (bookworm), fetched
# through a private deb822 list so the system's apt configuration is untouched.
#
# edgeadmm_debian_source(PACKAGE name OUT_DIR var)
#   Downloads (apt-get source --download-only) and unpacks (dpkg-source -x) the
#   source package into ${EDGEADMM_DEBIAN_SOURCE_DIR}/<name>/src and sets var
#   to that folder. A stamp file keeps a re-configure from downloading again.
#
# EDGEADMM_DEBIAN_SOURCE_DIR (cache, default <build>/_debian) can point several
# build trees at one cache.

set(EDGEADMM_DEBIAN_SOURCE_DIR "${CMAKE_BINARY_DIR}/_debian" CACHE PATH
  "Where Debian source packages for cross builds are downloaded and unpacked")
set(EDGEADMM_DEBIAN_SUITE "bookworm" CACHE STRING
  "Debian suite whose source packages cross builds use")

find_program(EDGEADMM_APT_GET apt-get REQUIRED)
find_program(EDGEADMM_DPKG_SOURCE dpkg-source REQUIRED)

# apt options that make every apt-get call use only the private list and a
# private state/cache folder (no system caches are rewritten).
function(_edgeadmm_apt_options out_var)
  set(_root "${EDGEADMM_DEBIAN_SOURCE_DIR}/apt")
  set(${out_var}
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=${_root}/sources.list.d"
    -o "Dir::State::Lists=${_root}/lists"
    -o "Dir::Cache=${_root}/cache"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
    -o "APT::Sandbox::User=root"
    -o "Acquire::Retries=3"
    -q
    PARENT_SCOPE)
endfunction()

# Writes the private deb-src list and runs `apt-get update` once.
function(_edgeadmm_debian_update)
  set(_root "${EDGEADMM_DEBIAN_SOURCE_DIR}/apt")
  set(_stamp "${_root}/update.stamp")
  if(EXISTS "${_stamp}")
    return()
  endif()
  file(MAKE_DIRECTORY "${_root}/sources.list.d" "${_root}/lists/partial"
       "${_root}/cache/archives/partial")
  file(WRITE "${_root}/sources.list.d/edgeadmm-src.sources"
    "Types: deb-src\n"
    "URIs: http://deb.debian.org/debian\n"
    "Suites: ${EDGEADMM_DEBIAN_SUITE}\n"
    "Components: main\n"
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
  _edgeadmm_apt_options(_opts)
  message(STATUS "Debian sources: apt-get update (${EDGEADMM_DEBIAN_SUITE} deb-src)")
  execute_process(COMMAND "${EDGEADMM_APT_GET}" ${_opts} update
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0 OR _err MATCHES "(^|\n)(E|W): ")
    message(FATAL_ERROR "apt-get update for Debian sources failed (${_rc}):\n${_out}\n${_err}")
  endif()
  file(TOUCH "${_stamp}")
endfunction()

function(edgeadmm_debian_source)
  cmake_parse_arguments(D "" "PACKAGE;OUT_DIR" "" ${ARGN})
  set(_dir "${EDGEADMM_DEBIAN_SOURCE_DIR}/${D_PACKAGE}")
  set(_stamp "${_dir}/unpacked.stamp")
  if(NOT EXISTS "${_stamp}")
    _edgeadmm_debian_update()
    _edgeadmm_apt_options(_opts)
    file(REMOVE_RECURSE "${_dir}")
    file(MAKE_DIRECTORY "${_dir}/download")
    message(STATUS "Debian sources: fetching ${D_PACKAGE}")
    execute_process(COMMAND "${EDGEADMM_APT_GET}" ${_opts} source --download-only
        "${D_PACKAGE}"
      WORKING_DIRECTORY "${_dir}/download"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    file(GLOB _dsc "${_dir}/download/*.dsc")
    list(LENGTH _dsc _n)
    if(NOT _rc EQUAL 0 OR NOT _n EQUAL 1)
      message(FATAL_ERROR "apt-get source ${D_PACKAGE} failed (${_rc}):\n${_out}\n${_err}")
    endif()
    # apt has already checked every file against the signed Release file;
    # dpkg-source re-checks the checksums listed in the .dsc.
    execute_process(COMMAND "${EDGEADMM_DPKG_SOURCE}" -x "${_dsc}" "${_dir}/src"
      WORKING_DIRECTORY "${_dir}"
      RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "dpkg-source -x ${_dsc} failed (${_rc}):\n${_out}\n${_err}")
    endif()
    get_filename_component(_dsc_name "${_dsc}" NAME)
    file(WRITE "${_stamp}" "${_dsc_name}\n")
  endif()
  file(READ "${_stamp}" _dsc_name)
  string(STRIP "${_dsc_name}" _dsc_name)
  message(STATUS "Debian sources: ${D_PACKAGE} from ${_dsc_name}")
  set(${D_OUT_DIR} "${_dir}/src" PARENT_SCOPE)
endfunction()
