// The persisted form of a DevicePrivacyLedger, shared by the device state
// blob (device_state.h) and the client record's earlier-jobs part
// (client_record.h). Little-endian:
//   offset  size  field
//        0     4  participations
//        4     4  order count K (DevicePrivacyLedger::kOrderCount)
//        8   8·K  RDP per order, IEEE 754 binary64 bit patterns
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/status.h"

namespace edgeadmm::internal {

inline constexpr size_t kLedgerBlobBytes =
    8 + 8 * DevicePrivacyLedger::kOrderCount;

// Writes kLedgerBlobBytes at `out`.
void WriteLedgerBlob(const DevicePrivacyLedger& ledger, std::byte* out);

// Reads kLedgerBlobBytes at `in` into `ledger`: DATA_LOSS (ledger unchanged)
// for another order count or values DevicePrivacyLedger::Restore refuses.
Status ReadLedgerBlob(const std::byte* in, DevicePrivacyLedger& ledger);

}  // namespace edgeadmm::internal
