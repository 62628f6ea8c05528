# Cortex-M4F (ARMv7E-M, Thumb-2, single-precision FPU, hard-float ABI) with
# the Arm GNU toolchain and newlib-nano. CPU and ABI only: the board (memory
# map, startup, runner) lives in platform/boards/<board>/.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR cortex-m4)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_SIZE arm-none-eabi-size)
# Compiler checks link no executable (there is no startup file yet).
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Enums are int-sized as on every other target (arm-none-eabi GCC defaults to
# -fshort-enums): generated nanopb structs then have one layout everywhere.
# newlib's multilibs use short enums but pass none across our calls; the
# linker's enum-size note is silenced.
set(_edgeadmm_cpu "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -fno-short-enums")
set(CMAKE_C_FLAGS_INIT "${_edgeadmm_cpu} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${_edgeadmm_cpu} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${_edgeadmm_cpu}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -Wl,--gc-sections -Wl,--no-enum-size-warning")

# Libraries and headers come from the toolchain's own sysroot only.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
