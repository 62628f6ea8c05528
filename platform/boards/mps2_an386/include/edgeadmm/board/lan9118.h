// Lan9118: polled driver for the SMSC LAN9118 Ethernet controller of the
// MPS2 board (a LAN9220 on the real FPGA board; QEMU's mps2-an386 emulates a
// LAN9118 at 0x40200000, IRQ 13, used here without the interrupt). 32-bit
// register interface: TX/RX data FIFOs, status FIFOs, the MAC's CSRs through
// MAC_CSR_CMD/DATA and the internal PHY through the MAC's MII registers.
#pragma once

#include <cstdint>

#include "edgeadmm/baremetal/ethernet_mac.h"

namespace edgeadmm::board {

class Lan9118 final : public baremetal::EthernetMac {
 public:
  explicit Lan9118(uintptr_t base) : base_(base) {}

  // Soft reset, then: the MAC address from the EEPROM (QEMU: -nic
  // ...,mac=) or `fallback_mac` when none is loaded, PHY auto-negotiation,
  // transmitter and receiver on, all interrupts off. UNAVAILABLE if no
  // LAN9118 answers at the base address or the reset does not finish.
  Status Init(const uint8_t fallback_mac[6]);

  void MacAddress(uint8_t address[6]) const override;
  bool LinkUp() override;
  Status Send(const ConstByteSpan* pieces, size_t count) override;
  bool FramePending() override;
  size_t Receive(ByteSpan buffer) override;

  // Frames dropped on receive (errors, too long for the buffer).
  uint32_t dropped() const { return dropped_; }

 private:
  uint32_t Read(uint32_t offset) const;
  void Write(uint32_t offset, uint32_t value) const;
  bool WaitClear(uint32_t offset, uint32_t mask) const;
  uint32_t MacRead(uint32_t index) const;
  void MacWrite(uint32_t index, uint32_t value) const;
  bool MiiIdle() const;
  uint16_t PhyRead(uint32_t index) const;
  void PhyWrite(uint32_t index, uint16_t value) const;

  uintptr_t base_;
  uint8_t mac_[6] = {};
  uint32_t dropped_ = 0;
  uint16_t tag_ = 0;
};

}  // namespace edgeadmm::board
