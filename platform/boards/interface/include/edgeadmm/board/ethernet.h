// The board's network port (library edgeadmm::board_ethernet of the board's
// folder), for the network stack (platform/lwip): its Ethernet MAC.
#pragma once

#include "edgeadmm/baremetal/ethernet_mac.h"

namespace edgeadmm::board {

// The board's Ethernet controller, initialised on first use (reset, MAC
// address, PHY auto-negotiation); nullptr if it does not answer (no NIC).
baremetal::EthernetMac* Ethernet();

}  // namespace edgeadmm::board
