#include "state/ledger_blob.h"

#include <cstring>

#include "edgeadmm/real.h"

namespace edgeadmm::internal {
namespace {

constexpr size_t kOrderCount = DevicePrivacyLedger::kOrderCount;

void PutLe(uint64_t value, size_t bytes, std::byte* out) {
  for (size_t i = 0; i < bytes; ++i) {
    out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFFu);
  }
}

uint64_t GetLe(const std::byte* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    value |= static_cast<uint64_t>(in[i]) << (8 * i);
  }
  return value;
}

}  // namespace

void WriteLedgerBlob(const DevicePrivacyLedger& ledger, std::byte* out) {
  static_assert(sizeof(double) == 8, "the ledger stores binary64");
  PutLe(ledger.participations(), 4, out);
  PutLe(kOrderCount, 4, out + 4);
  for (size_t i = 0; i < kOrderCount; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &ledger.rdp()[i], sizeof(bits));
    PutLe(bits, 8, out + 8 + 8 * i);
  }
}

Status ReadLedgerBlob(const std::byte* in, DevicePrivacyLedger& ledger) {
  if (GetLe(in + 4, 4) != kOrderCount) return Status::DataLoss();
  double rdp[kOrderCount];
  for (size_t i = 0; i < kOrderCount; ++i) {
    const uint64_t bits = GetLe(in + 8 + 8 * i, 8);
    std::memcpy(&rdp[i], &bits, sizeof(bits));
  }
  const uint32_t participations = static_cast<uint32_t>(GetLe(in, 4));
  return ledger.Restore(participations, Span<const double>(rdp, kOrderCount))
                 .ok()
             ? Status::Ok()
             : Status::DataLoss();
}

}  // namespace edgeadmm::internal
