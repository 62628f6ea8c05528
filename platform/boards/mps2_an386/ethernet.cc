#include "edgeadmm/board/ethernet.h"

#include <cstddef>
#include <cstdint>
#include <new>

#include "edgeadmm/board/lan9118.h"

namespace edgeadmm::board {
namespace {

// The MPS2's LAN9118/LAN9220 in the AN386 memory map (QEMU hw/arm/mps2.c).
constexpr uintptr_t kLan9118Base = 0x40200000u;
// Locally administered unicast address used when the EEPROM holds none.
constexpr uint8_t kFallbackMac[6] = {0x02, 0x45, 0x41, 0x44, 0x4D, 0x4D};

alignas(Lan9118) std::byte lan9118_memory[sizeof(Lan9118)];
Lan9118* lan9118 = nullptr;
bool tried = false;

}  // namespace

baremetal::EthernetMac* Ethernet() {
  if (!tried) {
    tried = true;
    auto* mac = new (lan9118_memory) Lan9118(kLan9118Base);
    if (mac->Init(kFallbackMac).ok()) lan9118 = mac;
  }
  return lan9118;
}

}  // namespace edgeadmm::board
