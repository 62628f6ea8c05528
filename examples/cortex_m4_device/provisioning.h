// The device's provisioning blob: identity, PSK and network settings written
// once at the factory into a flash page the firmware only reads (here the
// MPS2-AN386 flash model's provisioning page, a host file; on a product a
// page its linker script reserves, or OTP). make_provisioning_blob.py writes
// it; docs/porting.md ("Provisioning") documents the layout.
//
// Layout (kBlobBytes = 256, little-endian, offsets in bytes):
//   0   u32  magic 0x56504145 ("EAPV")
//   4   u16  version (kBlobVersion = 2; a version 1 blob, which has no
//            further gateways, is read too)
//   6   u16  length of the blob (256)
//   8   u8[4] the first gateway's IPv4 address (the aggregator)
//   12  u16  its UDP port (CoAP over DTLS)
//   14  u8   flags: bit 0 = DHCP (the addresses below are then unused)
//   15  u8   0
//   16  u8[4] device IPv4 address, 20 netmask, 24 gateway
//   28  u8   identity length (1..64), 29 u8 PSK length (1..64), 30 u16 0
//   32  char[64] identity (the DTLS PSK identity = the device id), 0-padded
//   96  u8[64]   PSK, 0-padded
//   160 u8   further gateways of the same deployment (0..3; version 2),
//            161 u8[3] 0
//   164 3 × (u8[4] IPv4 address, u16 port): the further gateways, in the
//            order the device moves to them (docs/aggregator.md, "Several
//            gateways on one database"); unused entries 0
//   182 zero up to 252
//   252 u32  CRC-32 (IEEE, crc32.h) of bytes 0..251
// Erased flash (0xFF), a wrong magic, version, length or CRC, a bad length
// or identity character, a port 0, more than 3 further gateways or a
// non-zero reserved byte is refused: the firmware never joins with a
// half-written identity.
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm::device_example {

inline constexpr uint32_t kBlobMagic = 0x56504145;
inline constexpr uint16_t kBlobVersion = 2;
inline constexpr size_t kBlobBytes = 256;
inline constexpr size_t kMaxIdentityBytes = 64;
inline constexpr size_t kMaxPskBytes = 64;
inline constexpr size_t kMaxGateways = 4;  // the first and 3 further

struct GatewayEndpoint {
  uint8_t address[4] = {};
  uint16_t port = 0;
};

struct Provisioning {
  GatewayEndpoint gateways[kMaxGateways];  // [0, gateway_count)
  size_t gateway_count = 0;                // >= 1
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
