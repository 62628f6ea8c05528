// The board's Ethernet controller (library edgeadmm::board_ethernet), for
// the network stack (platform/lwip).
#pragma once

#include "edgeadmm/baremetal/ethernet_mac.h"

namespace edgeadmm::board {

// The LAN9118, initialised on first use (soft reset, MAC address, PHY
// auto-negotiation); nullptr if it does not answer (QEMU without a NIC).
baremetal::EthernetMac* Ethernet();

}  // namespace edgeadmm::board
