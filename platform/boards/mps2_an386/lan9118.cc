#include "edgeadmm/board/lan9118.h"

#include <cstddef>

namespace edgeadmm::board {
namespace {

// System control and status registers (LAN9118 datasheet, section 5.3),
// byte offsets from the base address.
constexpr uint32_t kRxDataFifo = 0x00;
constexpr uint32_t kTxDataFifo = 0x20;
constexpr uint32_t kRxStatusFifo = 0x40;
constexpr uint32_t kTxStatusFifo = 0x48;
constexpr uint32_t kIrqCfg = 0x54;
constexpr uint32_t kIntSts = 0x58;
constexpr uint32_t kIntEn = 0x5C;
constexpr uint32_t kByteTest = 0x64;
constexpr uint32_t kRxCfg = 0x6C;
constexpr uint32_t kTxCfg = 0x70;
constexpr uint32_t kHwCfg = 0x74;
constexpr uint32_t kRxFifoInf = 0x7C;
constexpr uint32_t kTxFifoInf = 0x80;
constexpr uint32_t kPmtCtrl = 0x84;
constexpr uint32_t kMacCsrCmd = 0xA4;
constexpr uint32_t kMacCsrData = 0xA8;

constexpr uint32_t kByteTestValue = 0x87654321u;
constexpr uint32_t kHwCfgSoftReset = 1u << 0;
constexpr uint32_t kPmtCtrlReady = 1u << 0;
constexpr uint32_t kTxCfgTxOn = 1u << 1;
constexpr uint32_t kCsrBusy = 1u << 31;
constexpr uint32_t kCsrRead = 1u << 30;
constexpr uint32_t kStatusError = 1u << 15;  // ES in RX and TX status words
constexpr uint32_t kTxFirstSegment = 1u << 13;
constexpr uint32_t kTxLastSegment = 1u << 12;

// MAC CSRs (section 5.4), reached through MAC_CSR_CMD/DATA.
constexpr uint32_t kMacCr = 1;
constexpr uint32_t kMacAddrH = 2;
constexpr uint32_t kMacAddrL = 3;
constexpr uint32_t kMiiAcc = 6;
constexpr uint32_t kMiiData = 7;
constexpr uint32_t kMacCrRxEn = 1u << 2;
constexpr uint32_t kMacCrTxEn = 1u << 3;
constexpr uint32_t kMacCrFullDuplex = 1u << 20;
constexpr uint32_t kMiiBusy = 1u << 0;
constexpr uint32_t kMiiWrite = 1u << 1;
constexpr uint32_t kPhyAddress = 1;  // the internal PHY

// PHY registers (IEEE 802.3 clause 22).
constexpr uint32_t kPhyBasicControl = 0;
constexpr uint32_t kPhyBasicStatus = 1;
constexpr uint32_t kPhyAdvertisement = 4;
constexpr uint16_t kBcrReset = 0x8000;
constexpr uint16_t kBcrAutoNegotiate = 0x1000;
constexpr uint16_t kBcrRestartAutoNegotiation = 0x0200;
constexpr uint16_t kBsrLinkUp = 0x0004;
constexpr uint16_t kAdvertiseAll10And100 = 0x01E1;

// Busy-wait polls before a register wait gives up (QEMU answers at once; a
// real part finishes a soft reset within microseconds).
constexpr int kWaitPolls = 100000;

bool ValidUnicast(const uint8_t mac[6]) {
  bool zero = true;
  for (int i = 0; i < 6; ++i) zero = zero && mac[i] == 0;
  return !zero && (mac[0] & 1u) == 0;
}

}  // namespace

uint32_t Lan9118::Read(uint32_t offset) const {
  return *reinterpret_cast<volatile const uint32_t*>(base_ + offset);
}

void Lan9118::Write(uint32_t offset, uint32_t value) const {
  *reinterpret_cast<volatile uint32_t*>(base_ + offset) = value;
}

bool Lan9118::WaitClear(uint32_t offset, uint32_t mask) const {
  for (int i = 0; i < kWaitPolls; ++i) {
    if ((Read(offset) & mask) == 0) return true;
  }
  return false;
}

uint32_t Lan9118::MacRead(uint32_t index) const {
  (void)WaitClear(kMacCsrCmd, kCsrBusy);
  Write(kMacCsrCmd, kCsrBusy | kCsrRead | index);
  (void)WaitClear(kMacCsrCmd, kCsrBusy);
  return Read(kMacCsrData);
}

void Lan9118::MacWrite(uint32_t index, uint32_t value) const {
  (void)WaitClear(kMacCsrCmd, kCsrBusy);
  Write(kMacCsrData, value);
  Write(kMacCsrCmd, kCsrBusy | index);
  (void)WaitClear(kMacCsrCmd, kCsrBusy);
}

bool Lan9118::MiiIdle() const {
  for (int i = 0; i < kWaitPolls; ++i) {
    if ((MacRead(kMiiAcc) & kMiiBusy) == 0) return true;
  }
  return false;
}

// A PHY that never finishes reads as 0 (no link) and ignores writes.
uint16_t Lan9118::PhyRead(uint32_t index) const {
  if (!MiiIdle()) return 0;
  MacWrite(kMiiAcc, (kPhyAddress << 11) | (index << 6) | kMiiBusy);
  if (!MiiIdle()) return 0;
  return static_cast<uint16_t>(MacRead(kMiiData));
}

void Lan9118::PhyWrite(uint32_t index, uint16_t value) const {
  if (!MiiIdle()) return;
  MacWrite(kMiiData, value);
  MacWrite(kMiiAcc, (kPhyAddress << 11) | (index << 6) | kMiiWrite | kMiiBusy);
  (void)MiiIdle();
}

Status Lan9118::Init(const uint8_t fallback_mac[6]) {
  // BYTE_TEST reads a fixed pattern whatever the bus endianness.
  if (Read(kByteTest) != kByteTestValue) return Status::Unavailable();
  Write(kHwCfg, kHwCfgSoftReset);
  if (!WaitClear(kHwCfg, kHwCfgSoftReset)) return Status::Unavailable();
  for (int i = 0; (Read(kPmtCtrl) & kPmtCtrlReady) == 0; ++i) {
    if (i == kWaitPolls) return Status::Unavailable();
  }
  // Polled: every interrupt source off and acknowledged.
  Write(kIntEn, 0);
  Write(kIntSts, 0xFFFFFFFFu);
  Write(kIrqCfg, 0);

  // The address the EEPROM loaded at reset, else the fallback.
  const uint32_t low = MacRead(kMacAddrL);
  const uint32_t high = MacRead(kMacAddrH);
  for (int i = 0; i < 4; ++i) mac_[i] = static_cast<uint8_t>(low >> (8 * i));
  for (int i = 0; i < 2; ++i)
    mac_[4 + i] = static_cast<uint8_t>(high >> (8 * i));
  if (!ValidUnicast(mac_)) {
    for (int i = 0; i < 6; ++i) mac_[i] = fallback_mac[i];
    MacWrite(kMacAddrL, static_cast<uint32_t>(mac_[0]) |
                            static_cast<uint32_t>(mac_[1]) << 8 |
                            static_cast<uint32_t>(mac_[2]) << 16 |
                            static_cast<uint32_t>(mac_[3]) << 24);
    MacWrite(kMacAddrH, static_cast<uint32_t>(mac_[4]) |
                            static_cast<uint32_t>(mac_[5]) << 8);
  }

  PhyWrite(kPhyBasicControl, kBcrReset);
  for (int i = 0; (PhyRead(kPhyBasicControl) & kBcrReset) != 0; ++i) {
    if (i == kWaitPolls) return Status::Unavailable();
  }
  PhyWrite(kPhyAdvertisement, kAdvertiseAll10And100);
  PhyWrite(kPhyBasicControl, kBcrAutoNegotiate | kBcrRestartAutoNegotiation);

  // Receive: no offset or end padding. Station address, broadcast; not
  // promiscuous (QEMU's model resets MAC_CR to promiscuous).
  Write(kRxCfg, 0);
  Write(kTxCfg, kTxCfgTxOn);
  MacWrite(kMacCr, kMacCrTxEn | kMacCrRxEn | kMacCrFullDuplex);
  return Status::Ok();
}

void Lan9118::MacAddress(uint8_t address[6]) const {
  for (int i = 0; i < 6; ++i) address[i] = mac_[i];
}

bool Lan9118::LinkUp() { return (PhyRead(kPhyBasicStatus) & kBsrLinkUp) != 0; }

Status Lan9118::Send(const ConstByteSpan* pieces, size_t count) {
  size_t total = 0;
  size_t first = count;
  size_t last = 0;
  for (size_t i = 0; i < count; ++i) {
    if (pieces[i].empty()) continue;
    total += pieces[i].size();
    if (first == count) first = i;
    last = i;
  }
  if (total == 0 || total > kMaxFrameBytes) return Status::InvalidArgument();
  // TX_FIFO_INF[15:0] = free bytes of the data FIFO; each buffer also takes
  // two command words and up to 3 bytes of padding.
  if ((Read(kTxFifoInf) & 0xFFFFu) < total + 12 * count) {
    return Status::Unavailable();
  }
  ++tag_;
  for (size_t i = first; i <= last && i < count; ++i) {
    const ConstByteSpan piece = pieces[i];
    if (piece.empty()) continue;
    // TX command A: segment flags and buffer size (data start offset 0,
    // 4-byte end alignment); command B: packet tag and frame length.
    Write(kTxDataFifo, (i == first ? kTxFirstSegment : 0u) |
                           (i == last ? kTxLastSegment : 0u) |
                           static_cast<uint32_t>(piece.size()));
    Write(kTxDataFifo,
          static_cast<uint32_t>(tag_) << 16 | static_cast<uint32_t>(total));
    // Data as little-endian words, the last one zero-padded.
    const std::byte* bytes = piece.data();
    for (size_t at = 0; at < piece.size(); at += 4) {
      uint32_t word = 0;
      for (size_t b = 0; b < 4 && at + b < piece.size(); ++b)
        word |= static_cast<uint32_t>(bytes[at + b]) << (8 * b);
      Write(kTxDataFifo, word);
    }
  }
  // Drain the TX status FIFO (TX_FIFO_INF[23:16] entries) so it never
  // fills; a frame already handed to the MAC is reported sent.
  while (((Read(kTxFifoInf) >> 16) & 0xFFu) != 0) (void)Read(kTxStatusFifo);
  return Status::Ok();
}

bool Lan9118::FramePending() {
  return ((Read(kRxFifoInf) >> 16) & 0xFFu) != 0;  // RX status entries
}

size_t Lan9118::Receive(ByteSpan buffer) {
  if (!FramePending()) return 0;
  // RX status: frame length with the 4-byte FCS in [29:16], error summary.
  // The data FIFO holds that many bytes rounded up to whole words; the
  // frame is read out completely even when dropped (QEMU's model does not
  // implement RX_DP_CTRL's fast-forward correctly).
  const uint32_t status = Read(kRxStatusFifo);
  const size_t with_fcs = (status >> 16) & 0x3FFFu;
  const size_t size = with_fcs >= 4 ? with_fcs - 4 : 0;
  const bool keep =
      (status & kStatusError) == 0 && size > 0 && size <= buffer.size();
  std::byte* out = buffer.data();
  for (size_t at = 0; at < with_fcs; at += 4) {
    const uint32_t word = Read(kRxDataFifo);
    if (!keep) continue;
    for (size_t b = 0; b < 4 && at + b < size; ++b)
      out[at + b] = static_cast<std::byte>(word >> (8 * b));
  }
  if (!keep) {
    ++dropped_;
    return 0;
  }
  return size;
}

}  // namespace edgeadmm::board
