// EthernetMac: the port a board's Ethernet controller driver implements for
// the network stack (platform/lwip): whole frames in and out, polled (no
// interrupts). Frames are without preamble and FCS; the controller adds and
// checks the CRC.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::baremetal {

class EthernetMac {
 public:
  EthernetMac(const EthernetMac&) = delete;
  EthernetMac& operator=(const EthernetMac&) = delete;

  static constexpr size_t kMaxFrameBytes = 1514;  // without the FCS

  // The station address the controller filters on.
  virtual void MacAddress(uint8_t address[6]) const = 0;
  // True while the PHY reports a link.
  virtual bool LinkUp() = 0;
  // Sends one frame given as consecutive pieces (a scatter list).
  // INVALID_ARGUMENT if it is longer than kMaxFrameBytes, UNAVAILABLE if
  // the controller does not take it.
  virtual Status Send(const ConstByteSpan* pieces, size_t count) = 0;
  // True if a received frame is waiting.
  virtual bool FramePending() = 0;
  // Takes the next received frame into `buffer`: its size, or 0 if none
  // was waiting or it was dropped (receive error, longer than `buffer`).
  virtual size_t Receive(ByteSpan buffer) = 0;

 protected:
  EthernetMac() = default;
  ~EthernetMac() = default;
};

}  // namespace edgeadmm::baremetal
