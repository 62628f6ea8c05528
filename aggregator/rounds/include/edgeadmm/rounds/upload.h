// Upload: one device's contribution to a round, and the engine's verdict.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgeadmm::rounds {

// The device's own ledger as it reported it with an upload (Update.ledger,
// validated at decode): what the device enforces its budget with.
struct ReportedLedger {
  bool present = false;
  int64_t participations = 0;
  double epsilon = 0;  // DBL_MAX: the device's +inf
  double delta = 0;
  std::string conversion;  // "classic" or "improved"
};

// What the server decoded from the network (already size-bounded).
struct Upload {
  std::string device_id;  // as claimed in the payload
  int64_t job_id = 0;
  int64_t round_id = 0;
  std::vector<uint8_t> vector;  // little-endian float32, UploadLength values
  // What a retransmission must repeat byte for byte to count as the same
  // upload: the whole wire body (docs/protocol.md); empty means `vector`.
  std::vector<uint8_t> fingerprint;
  // The algorithm's own bytes to store with the upload (Update.
  // algorithm_extra, checked by its algorithms::UploadExtra, which also says
  // in which rounds they are kept); opaque here. Empty: none.
  std::vector<uint8_t> extra = {};
  ReportedLedger ledger = {};  // Update.ledger

  const std::vector<uint8_t>& fingerprint_or_vector() const {
    return fingerprint.empty() ? vector : fingerprint;
  }
};

// The engine's answer. Only kAccepted changes state; kDuplicate is the same
// success answer for an identical retransmission. Every other verdict leaves
// the engine and the store unchanged.
enum class UploadVerdict : uint8_t {
  kAccepted,
  kDuplicate,             // identical bytes already accepted this round
  kIdentityMismatch,      // payload device id != authenticated identity
  kUnknownDevice,         // not enrolled in this job
  kDeviceDisabled,        // disabled or removed in the registry
  kWrongJob,              // the payload names another job
  kStaleRound,            // round is not the current open round
  kNotInCohort,           // device not sampled for this round
  kConflictingDuplicate,  // a different payload was already accepted
  kMalformed,             // wrong length or non-finite
  kJobNotRunning,         // the job is stopped, completed or exhausted
  kStoreUnavailable,      // the local ledger charge could not be stored
  kNormAboveBound,        // above the algorithm's HonestUpload bound
  // takes the device's sum of accepted uploads in the job above what as
  // many honest uploads reach (UploadSums)
  kSumAboveBound,
  // the job runs under secure-aggregation: its rounds take the SecAgg+
  // phases only (docs/protocol.md), never a plain upload
  kSecureAggregationOnly,
};

// "accepted", "stale-round", ... for logs and tests.
const char* UploadVerdictName(UploadVerdict v);
// True for kAccepted and kDuplicate.
inline bool IsSuccess(UploadVerdict v) {
  return v == UploadVerdict::kAccepted || v == UploadVerdict::kDuplicate;
}

}  // namespace edgeadmm::rounds
