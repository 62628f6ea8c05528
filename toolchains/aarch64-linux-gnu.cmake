# 64-bit Arm Linux (ARMv8-A, LP64, glibc), e.g. Raspberry Pi 4/5 class gateways.
# CPU and ABI only. Libraries come from Debian multiarch (:arm64) packages in
# /usr/lib/aarch64-linux-gnu; programs run under qemu-aarch64 on the build host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Multiarch: one /usr prefix, per-architecture library folders. Host (x86_64)
# libraries live in /usr/lib/x86_64-linux-gnu and are never searched.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

# The guest's loader is the cross toolchain's (libc6-arm64-cross, found
# under -L), so its libc must come from the same package: LD_LIBRARY_PATH=/lib
# (/usr/aarch64-linux-gnu/lib under -L) puts it before the multiarch
# folder, where the loader would otherwise find the libc6:arm64 package's
# libc, a different build of glibc. With that mismatch (loader 2.36-8cross1,
# libc 2.36-9+deb12u14) single-threaded programs ran, but every
# pthread_create looped forever in the loader's stack cache.
find_program(_edgeadmm_qemu qemu-aarch64)
if(_edgeadmm_qemu)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      "${_edgeadmm_qemu};-L;/usr/aarch64-linux-gnu;-E;LD_LIBRARY_PATH=/lib")
endif()
