# edgeadmm_qemu_mps2_board(NAME name LINKER_SCRIPT file [option value]...):
# defines the selected board's libraries from this folder's sources, for the
# MPS2-AN386 under QEMU and its variants (../mps2_an386_*): edgeadmm::board
# (startup, the board interface over semihosting) and edgeadmm::board_ethernet
# (the LAN9118), the runner and its network options. A variant brings its
# own linker script and changes what differs (defaults: this board's):
#   FLASH_SECTOR_BYTES 2048, FLASH_SECTORS 32   the state region's geometry
#                                               (8-byte program units)
#   SECTORS_PER_BANK 4                          FlashStorage banks (2 a key)
#   PROVISIONING_BYTES 2048                     the provisioning sector
#   STATE_FILE state.bin                        the state region's host file
#   ENTROPY_SEED 0x4d5053322d414e33             the fixed (UNSAFE) seed
# The provisioning record is provision.bin; both files are relative to
# QEMU's working directory.
set(EDGEADMM_MPS2_AN386_DIR "${CMAKE_CURRENT_LIST_DIR}")  # in the includer's scope
function(edgeadmm_qemu_mps2_board)
  set(_values NAME LINKER_SCRIPT FLASH_SECTOR_BYTES FLASH_SECTORS
    SECTORS_PER_BANK PROVISIONING_BYTES STATE_FILE ENTROPY_SEED)
  cmake_parse_arguments(B "" "${_values}" "" ${ARGN})
  foreach(_default FLASH_SECTOR_BYTES=2048 FLASH_SECTORS=32 SECTORS_PER_BANK=4
      PROVISIONING_BYTES=2048 STATE_FILE=state.bin
      ENTROPY_SEED=0x4d5053322d414e33)
    string(REPLACE "=" ";" _pair "${_default}")
    list(GET _pair 0 _key)
    list(GET _pair 1 _value)
    if(NOT DEFINED B_${_key})
      set(B_${_key} "${_value}")
    endif()
  endforeach()
  set(_src "${EDGEADMM_MPS2_AN386_DIR}")
  set(_lib edgeadmm_board_${B_NAME})
  add_library(${_lib} OBJECT "${_src}/startup.cc" "${_src}/board.cc")
  add_library(edgeadmm::board ALIAS ${_lib})
  target_compile_definitions(${_lib} PRIVATE
    EDGEADMM_QEMU_FLASH_SECTOR_BYTES=${B_FLASH_SECTOR_BYTES}
    EDGEADMM_QEMU_FLASH_SECTORS=${B_FLASH_SECTORS}
    EDGEADMM_QEMU_SECTORS_PER_BANK=${B_SECTORS_PER_BANK}
    EDGEADMM_QEMU_PROVISIONING_BYTES=${B_PROVISIONING_BYTES}
    "EDGEADMM_QEMU_STATE_FILE=\"${B_STATE_FILE}\""
    EDGEADMM_QEMU_ENTROPY_SEED=${B_ENTROPY_SEED}ull)
  target_link_libraries(${_lib} PUBLIC edgeadmm::board_interface
    edgeadmm::baremetal edgeadmm::seeded_entropy)
  edgeadmm_device_options(${_lib})
  # Installed (cmake/EdgeAdmmInstallBareMetal.cmake), the linker script is
  # under the prefix's share/edgeadmm/boards/<name>/.
  get_filename_component(_script_name "${B_LINKER_SCRIPT}" NAME)
  target_link_options(${_lib} INTERFACE -nostartfiles
    "$<BUILD_INTERFACE:-T${B_LINKER_SCRIPT}>"
    "$<INSTALL_INTERFACE:-T$<INSTALL_PREFIX>/share/edgeadmm/boards/${B_NAME}/${_script_name}>")
  set_property(TARGET ${_lib} APPEND PROPERTY
    INTERFACE_LINK_DEPENDS "$<BUILD_INTERFACE:${B_LINKER_SCRIPT}>")
  set_property(TARGET ${_lib} PROPERTY EDGEADMM_LINKER_SCRIPT "${B_LINKER_SCRIPT}")

  find_program(EDGEADMM_QEMU_SYSTEM_ARM qemu-system-arm REQUIRED)
  set(EDGEADMM_BOARD_RUNNER "${EDGEADMM_QEMU_SYSTEM_ARM}" -machine mps2-an386
    -cpu cortex-m4 -nographic -monitor none -serial none
    -semihosting-config enable=on,target=native -kernel
    CACHE INTERNAL "Command that runs a firmware image given as its last argument")

  # The LAN9118 Ethernet controller (polled driver) for networked firmware:
  # a library of its own, so firmware without a network does not link it.
  add_library(edgeadmm_board_ethernet STATIC "${_src}/lan9118.cc"
    "${_src}/ethernet.cc")
  add_library(edgeadmm::board_ethernet ALIAS edgeadmm_board_ethernet)
  target_include_directories(edgeadmm_board_ethernet PRIVATE "${_src}/include")
  target_link_libraries(edgeadmm_board_ethernet PUBLIC
    edgeadmm::board_interface edgeadmm::baremetal)
  edgeadmm_device_options(edgeadmm_board_ethernet)
  # The runner's options that give the board's LAN9118 a QEMU user-mode
  # network (slirp: the firmware is 10.0.2.15, the host's loopback 10.0.2.2).
  set(EDGEADMM_BOARD_NETWORK_OPTIONS -nic user,model=lan9118
    CACHE INTERNAL "Runner options that connect the board's NIC to QEMU user networking")
endfunction()
