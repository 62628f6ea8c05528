#include "provisioning.h"

#include <cstring>

#include "edgeadmm/crc32.h"

namespace edgeadmm::device_example {
namespace {

uint32_t U32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
         uint32_t{p[3]} << 24;
}
uint16_t U16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}

}  // namespace

Status ParseProvisioning(ConstByteSpan blob, Provisioning& out) {
  if (blob.size() < kBlobBytes) return Status::InvalidArgument();
  const auto* b = reinterpret_cast<const uint8_t*>(blob.data());
  bool erased = true;
  for (size_t i = 0; i < kBlobBytes && erased; ++i) erased = b[i] == 0xFF;
  if (erased) return Status::NotFound();
  const uint16_t version = U16(b + 4);
  if (U32(b) != kBlobMagic || (version != 1 && version != kBlobVersion) ||
      U16(b + 6) != kBlobBytes) {
    return Status::InvalidArgument();
  }
  if (Crc32(blob.first(kBlobBytes - 4)) != U32(b + kBlobBytes - 4)) {
    return Status::DataLoss();
  }
  const size_t identity_size = b[28];
  const size_t psk_size = b[29];
  if (identity_size == 0 || identity_size > kMaxIdentityBytes ||
      psk_size == 0 || psk_size > kMaxPskBytes) {
    return Status::InvalidArgument();
  }
  for (size_t i = 0; i < identity_size; ++i) {
    if (b[32 + i] < 0x21 || b[32 + i] > 0x7E) return Status::InvalidArgument();
  }
  Provisioning p;
  std::memcpy(p.gateways[0].address, b + 8, 4);
  p.gateways[0].port = U16(b + 12);
  const size_t further = version == 1 ? 0 : b[160];
  if (further > kMaxGateways - 1) return Status::InvalidArgument();
  p.gateway_count = 1 + further;
  for (size_t i = 0; i < further; ++i) {
    std::memcpy(p.gateways[1 + i].address, b + 164 + 6 * i, 4);
    p.gateways[1 + i].port = U16(b + 168 + 6 * i);
  }
  // Version 2: every byte the layout does not use is 0.
  const size_t used_end = 164 + 6 * further;
  for (size_t i = 161; version != 1 && i < kBlobBytes - 4; ++i) {
    if ((i < 164 || i >= used_end) && b[i] != 0) {
      return Status::InvalidArgument();
    }
  }
  p.dhcp = (b[14] & 1) != 0;
  std::memcpy(p.address, b + 16, 4);
  std::memcpy(p.netmask, b + 20, 4);
  std::memcpy(p.gateway, b + 24, 4);
  std::memcpy(p.identity, b + 32, identity_size);
  std::memcpy(p.psk, b + 96, psk_size);
  p.psk_size = psk_size;
  for (size_t i = 0; i < p.gateway_count; ++i) {
    if (p.gateways[i].port == 0) return Status::InvalidArgument();
  }
  out = p;
  return Status::Ok();
}

}  // namespace edgeadmm::device_example
