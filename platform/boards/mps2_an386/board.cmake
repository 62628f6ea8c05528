# edgeadmm_qemu_mps2_board(NAME LINKER_SCRIPT CONFIG_DIR): defines the
# selected board's libraries from this folder's sources, for the MPS2-AN386
# under QEMU and its variants (../mps2_an386_*): edgeadmm::board (startup,
# the board interface, semihosting console and exit) and
# edgeadmm::board_ethernet (the LAN9118), the runner and its network options.
# A variant brings its own linker script and config/board_config.h.
set(EDGEADMM_MPS2_AN386_DIR "${CMAKE_CURRENT_LIST_DIR}")  # in the includer's scope
function(edgeadmm_qemu_mps2_board NAME LINKER_SCRIPT CONFIG_DIR)
  set(_src "${EDGEADMM_MPS2_AN386_DIR}")
  set(_lib edgeadmm_board_${NAME})
  add_library(${_lib} OBJECT "${_src}/startup.cc" "${_src}/board.cc")
  add_library(edgeadmm::board ALIAS ${_lib})
  target_include_directories(${_lib} PRIVATE "${CONFIG_DIR}")
  target_link_libraries(${_lib} PUBLIC edgeadmm::board_interface
    edgeadmm::baremetal edgeadmm::seeded_entropy)
  edgeadmm_device_options(${_lib})
  target_link_options(${_lib} INTERFACE -nostartfiles "-T${LINKER_SCRIPT}")
  set_property(TARGET ${_lib} APPEND PROPERTY
    INTERFACE_LINK_DEPENDS "${LINKER_SCRIPT}")

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
