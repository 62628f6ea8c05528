// The device's provisioning blob: identity, PSK and network settings written
// once at the factory into a flash page the firmware only reads (here the
// MPS2-AN386 flash model's provisioning page, a host file; on a product a
// page its linker script reserves, or OTP). make_provisioning_blob.py writes
// it; docs/porting.md ("Provisioning") documents the layout.
//
// Layout (kBlobBytes = 256, little-endian, offsets in bytes):
//   0   u32  magic 0x56504145 ("EAPV")
//   4   u16  version (kBlobVersion = 1)
//   6   u16  length of the blob (256)
//   8   u8[4] aggregator IPv4 address
//   12  u16  aggregator UDP port (CoAP over DTLS)
//   14  u8   flags: bit 0 = DHCP (the addresses below are then unused)
//   15  u8   0
//   16  u8[4] device IPv4 address, 20 netmask, 24 gateway
//   28  u8   identity length (1..64), 29 u8 PSK length (1..64), 30 u16 0
//   32  char[64] identity (the DTLS PSK identity = the device id), 0-padded
//   96  u8[64]   PSK, 0-padded
//   160 zero up to 252
//   252 u32  CRC-32 (IEEE, crc32.h) of bytes 0..251
// Erased flash (0xFF), a wrong magic, version, length or CRC, or a bad
// length or identity character is refused: the firmware never joins with a
// half-written identity.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::device_example {

inline constexpr uint32_t kBlobMagic = 0x56504145;
inline constexpr uint16_t kBlobVersion = 1;
inline constexpr size_t kBlobBytes = 256;
inline constexpr size_t kMaxIdentityBytes = 64;
inline constexpr size_t kMaxPskBytes = 64;

struct Provisioning {
  uint8_t server[4] = {};
  uint16_t port = 0;
  bool dhcp = false;
  uint8_t address[4] = {};
  uint8_t netmask[4] = {};
  uint8_t gateway[4] = {};
  char identity[kMaxIdentityBytes + 1] = {};
  uint8_t psk[kMaxPskBytes] = {};
  size_t psk_size = 0;
};

// Parses a blob: NOT_FOUND for erased flash, DATA_LOSS for a wrong CRC,
// INVALID_ARGUMENT for a wrong magic, version, length or field.
Status ParseProvisioning(ConstByteSpan blob, Provisioning& out);

}  // namespace edgeadmm::device_example
