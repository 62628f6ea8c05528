// DeviceState: what a device persists between rounds, and its blob format.
//
// Blob layout (all integers little-endian, reals as IEEE 754 binary64 bit
// patterns, little-endian):
//   offset  size  field
//        0     4  magic "EADS"
//        4     2  format version (kDeviceStateFormatVersion)
//        6     1  algorithm (AlgorithmKind value; format 1 stored 0..3,
//                 see kDeviceStateFormatVersion)
//        7     1  reserved, 0
//        8     8  job_id
//       16     8  last_round
//       24     4  local_iteration
//       28     4  drbg_reseed_count
//       32     4  primary dim P
//       36     4  secondary dim S
//       40     4  ledger participations
//       44     4  ledger order count K (DevicePrivacyLedger::kOrderCount)
//       48   8·K  ledger RDP per order
//           8·P  primary
//           8·S  secondary
//             4  CRC-32 (crc32.h) of every byte before it
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/algorithm.h"
#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/real.h"
#include "edgeadmm/result.h"
#include "edgeadmm/span.h"
#include "edgeadmm/status.h"

namespace edgeadmm {

struct DeviceState {
  uint64_t job_id = 0;
  AlgorithmKind algorithm{};  // unset (0): SerializeDeviceState refuses it
  // Round id of the last completed local step; UINT64_MAX = none.
  uint64_t last_round = UINT64_MAX;
  // k of paper 004's schedules / number of local steps taken.
  uint32_t local_iteration = 0;
  uint32_t drbg_reseed_count = 0;
  // The step's first state vector (its runner says which, e.g. a dual
  // variable); size dim, or empty for a step that keeps none.
  Span<Real> primary;
  // Its second state vector (e.g. a schedule's state); empty when unused.
  Span<Real> secondary;
  DevicePrivacyLedger ledger;
};

inline constexpr char kDeviceStateMagic[4] = {'E', 'A', 'D', 'S'};
// Format 2 stores the AlgorithmKind value (the wire number); format 1 stored
// an index 0..3 into the first four wire numbers (1, 2, 3, 5) and still loads.
inline constexpr uint16_t kDeviceStateFormatVersion = 2;
inline constexpr size_t kDeviceStateHeaderBytes = 48;

// Bytes of a blob whose primary and secondary hold `primary_dim` and
// `secondary_dim` entries.
constexpr size_t DeviceStateSerializedSize(size_t primary_dim,
                                           size_t secondary_dim) {
  return kDeviceStateHeaderBytes +
         8 * (DevicePrivacyLedger::kOrderCount + primary_dim + secondary_dim) +
         4;
}

// Bytes Serialize needs for vectors of `dim` entries each (primary and
// secondary); an upper bound when secondary is empty.
constexpr size_t DeviceStateSerializedSize(size_t dim) {
  return DeviceStateSerializedSize(dim, dim);
}

// Writes `state` as a blob (layout above) into `out` and returns the bytes
// written. RESOURCE_EXHAUSTED if `out` is too small, INVALID_ARGUMENT if a
// vector is longer than EDGEADMM_CFG_MAX_FEATURES or holds a non-finite
// value, or the algorithm is out of range (nothing useful is written then).
StatusWithSize SerializeDeviceState(const DeviceState& state, ByteSpan out);

// The identity and shape of a stored blob (see InspectDeviceState).
struct DeviceStateInfo {
  uint64_t job_id = 0;
  AlgorithmKind algorithm{};
  size_t primary_dim = 0;
  size_t secondary_dim = 0;
  DevicePrivacyLedger ledger;  // the job's ledger
};

// Validates a blob exactly like DeserializeDeviceState, writes nothing, and
// returns its job, algorithm, dims and ledger, so a caller can decide whether
// to load it (e.g. refuse a blob of another job) before touching its own state.
// DATA_LOSS for a corrupt or truncated blob.
Result<DeviceStateInfo> InspectDeviceState(ConstByteSpan in);

// Reads a blob into `state`, whose primary/secondary spans must already have
// the blob's dims. Validates everything (length, CRC, magic, version, enum
// range, finite values, ledger consistency) before writing anything:
// DATA_LOSS for a corrupt or truncated blob, INVALID_ARGUMENT for a
// well-formed blob whose dims differ from the spans' sizes. On error `state`
// is untouched.
Status DeserializeDeviceState(ConstByteSpan in, DeviceState& state);

}  // namespace edgeadmm
