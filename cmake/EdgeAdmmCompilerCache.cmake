# Compiler cache: when ccache is installed (scripts/setup installs it), every
# compile goes through it. CCACHE_BASEDIR makes the paths under the source
# tree relative and CCACHE_NOHASHDIR leaves the build directory out of the
# hash, so a fresh clone in another folder (CI, a worktree) reuses what an
# earlier build compiled. CCACHE_SLOPPINESS lets ccache cache the test
# drivers' precompiled GoogleTest header and the objects that use it
# (edgeadmm_use_gtest_pch; no source uses __DATE__ or __TIME__), and
# CCACHE_PCH_EXTSUM has it hash the header's checksum file, written by the
# build, in place of the header itself. CCACHE_DEPEND (depend mode) keys an
# object on the headers the compiler's dependency file lists (Ninja always
# asks for one) instead of running the preprocessor on every miss.
# EDGEADMM_CCACHE=OFF turns it off.
option(EDGEADMM_CCACHE "Compile through ccache when it is installed" ON)
if(EDGEADMM_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(EDGEADMM_CCACHE_PROGRAM ccache)
  if(EDGEADMM_CCACHE_PROGRAM)
    set(_edgeadmm_launcher ${CMAKE_COMMAND} -E env
        CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
        CCACHE_SLOPPINESS=pch_defines,time_macros CCACHE_PCH_EXTSUM=1
        CCACHE_DEPEND=1
        ${EDGEADMM_CCACHE_PROGRAM})
    set(CMAKE_C_COMPILER_LAUNCHER ${_edgeadmm_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_edgeadmm_launcher})
  endif()
endif()
