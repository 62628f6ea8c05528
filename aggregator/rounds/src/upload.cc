#include "edgeadmm/rounds/upload.h"

namespace edgeadmm::rounds {

const char* UploadVerdictName(UploadVerdict v) {
  static constexpr const char* kNames[] = {
      "accepted",         "duplicate",       "identity-mismatch",
      "unknown-device",   "device-disabled", "wrong-job",
      "stale-round",      "not-in-cohort",   "conflicting-duplicate",
      "malformed",        "job-not-running", "store-unavailable",
      "norm-above-bound", "sum-above-bound", "secure-aggregation-only"};
  return kNames[static_cast<int>(v)];
}

}  // namespace edgeadmm::rounds
