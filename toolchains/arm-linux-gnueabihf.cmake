# 32-bit Arm Linux (ARMv7-A, Thumb-2, VFPv3-D16, hard-float ABI, glibc), e.g.
# older gateway boards. CPU and ABI only. Dependencies are built from Debian
# source packages (multiarch :armhf is unreliable here); programs run under
# qemu-arm on the build host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabihf)

set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)

# Only the cross toolchain's own sysroot is searched for libraries.
set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(_edgeadmm_qemu qemu-arm)
if(_edgeadmm_qemu)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${_edgeadmm_qemu};-L;/usr/arm-linux-gnueabihf")
endif()
