# Compile options shared by project targets.
#
# edgeadmm_device_options(target): rules for code that runs on a device
#   (sdk/, platform/): no exceptions, no RTTI, Eigen may not allocate.
# edgeadmm_host_options(target): warnings for host-only code (aggregator, tools).

set(_edgeadmm_warnings -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Wconversion -Wno-sign-conversion -Wdouble-promotion)
if(EDGEADMM_WERROR)
  list(APPEND _edgeadmm_warnings -Werror)
endif()

function(edgeadmm_device_options target)
  target_compile_options(${target} PRIVATE ${_edgeadmm_warnings}
    $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti -fno-threadsafe-statics>)
  target_compile_definitions(${target} PRIVATE EIGEN_NO_MALLOC EIGEN_NO_IO
    EIGEN_MPL2_ONLY EIGEN_DONT_PARALLELIZE)
  # eigen_assert -> edgeadmm_panic in every build type, so an Eigen heap
  # allocation (EIGEN_NO_MALLOC) panics even with NDEBUG.
  target_compile_options(${target} PRIVATE
    "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${PROJECT_SOURCE_DIR}/cmake/deps/eigen_device_config.h>")
endfunction()

function(edgeadmm_host_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
    $<$<BOOL:${EDGEADMM_WERROR}>:-Werror>)
endfunction()

# Sanitizer builds (host-asan preset). -fno-sanitize=vptr is deliberate:
# UBSan's vptr check reads the typeinfo of every polymorphic class it checks,
# and device code (sdk/, platform/) has none (-fno-rtti), so host binaries that
# use device classes would not link. Turning RTTI on in sanitizer builds only
# would test a different device build than the one that ships; we keep the
# device rules identical in every build and give up the vptr check (all other
# UBSan checks stay on and abort: -fno-sanitize-recover=all).
if(EDGEADMM_SANITIZE AND NOT EDGEADMM_BARE_METAL)
  string(REPLACE ";" "," _san "${EDGEADMM_SANITIZE}")
  add_compile_options(-fsanitize=${_san} -fno-sanitize=vptr -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_san} -fno-sanitize=vptr)
endif()
