// The network of a bare-metal firmware: lwIP (NO_SYS) on one Ethernet
// interface driven by a board's EthernetMac, with a static IPv4 address or
// DHCP. Polled: the firmware's loop (or UdpLink::Wait) calls PollNetwork(),
// which moves received frames into lwIP and runs lwIP's timers against the
// board's clock. One network per firmware (lwIP's state is global).
#pragma once

#include <cstdint>

#include "edgeadmm/baremetal/ethernet_mac.h"
#include "edgeadmm/status.h"

namespace edgeadmm::lwip {

struct NetworkConfig {
  baremetal::EthernetMac* mac = nullptr;
  // Monotonic milliseconds (lwIP's sys_now()).
  uint64_t (*now_ms)() = nullptr;
  // DHCP, or the static address below (QEMU user networking's defaults).
  bool dhcp = false;
  uint8_t address[4] = {10, 0, 2, 15};
  uint8_t netmask[4] = {255, 255, 255, 0};
  uint8_t gateway[4] = {10, 0, 2, 2};
};

// Starts lwIP and brings the interface up. FAILED_PRECONDITION if already
// started, INVALID_ARGUMENT without a MAC or clock, UNIMPLEMENTED for DHCP
// when lwipopts.h leaves it out (LWIP_DHCP 0).
Status StartNetwork(const NetworkConfig& config);

// True once StartNetwork() succeeded.
bool NetworkStarted();

// Takes every waiting frame into lwIP, follows the PHY's link state and
// runs due lwIP timers (ARP, DHCP).
void PollNetwork();

// True when the link is up and the interface has its address.
bool NetworkReady();

// Polls until NetworkReady() or `timeout_ms` passed (DEADLINE_EXCEEDED).
Status WaitNetworkReady(uint32_t timeout_ms);

// The interface's IPv4 address (network byte order as bytes).
void NetworkAddress(uint8_t address[4]);

// The clock the network was started with.
uint64_t NetworkNowMs();

}  // namespace edgeadmm::lwip
