#include "state/ledger_blob.h"

#include <cstring>

#include "edgeadmm/byte_order.h"
#include "edgeadmm/real.h"

namespace edgeadmm::internal {
namespace {

constexpr size_t kOrderCount = DevicePrivacyLedger::kOrderCount;

}  // namespace

void WriteLedgerBlob(const DevicePrivacyLedger& ledger, std::byte* out) {
  static_assert(sizeof(double) == 8, "the ledger stores binary64");
  StoreLittleEndian(out, ledger.participations(), 4);
  StoreLittleEndian(out + 4, kOrderCount, 4);
  for (size_t i = 0; i < kOrderCount; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, &ledger.rdp()[i], sizeof(bits));
    StoreLittleEndian(out + 8 + 8 * i, bits, 8);
  }
}

Status ReadLedgerBlob(const std::byte* in, DevicePrivacyLedger& ledger) {
  if (LoadLittleEndian(in + 4, 4) != kOrderCount) return Status::DataLoss();
  double rdp[kOrderCount];
  for (size_t i = 0; i < kOrderCount; ++i) {
    const uint64_t bits = LoadLittleEndian(in + 8 + 8 * i, 8);
    std::memcpy(&rdp[i], &bits, sizeof(bits));
  }
  const uint32_t participations =
      static_cast<uint32_t>(LoadLittleEndian(in, 4));
  return ledger.Restore(participations, Span<const double>(rdp, kOrderCount))
                 .ok()
             ? Status::Ok()
             : Status::DataLoss();
}

}  // namespace edgeadmm::internal
