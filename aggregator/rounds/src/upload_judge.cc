#include "edgeadmm/rounds/upload_judge.h"

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/rounds/server_update.h"
#include "edgeadmm/rounds/upload_digest.h"
#include "edgeadmm/store/blob.h"

namespace edgeadmm::rounds {
namespace {

// Whether `upload` repeats the accepted one byte for byte (by SHA-256).
bool Repeats(const OpenRound::Accepted& accepted, const Upload& upload) {
  return accepted.fingerprint_digest ==
         UploadDigest(upload.fingerprint_or_vector());
}

}  // namespace

UploadVerdict UploadJudge::Judge(std::string_view identity,
                                 const Upload& upload, const OpenRound& open,
                                 int64_t iteration, size_t* index) const {
  if (identity != upload.device_id) return UploadVerdict::kIdentityMismatch;
  auto it = device_index_->find(upload.device_id);
  if (it == device_index_->end()) return UploadVerdict::kUnknownDevice;
  *index = it->second;
  auto record = registry_->Get(upload.device_id);
  if (!record.ok() || !record->enabled) return UploadVerdict::kDeviceDisabled;
  if (upload.job_id != job_->id) return UploadVerdict::kWrongJob;
  if (job_->state != jobs::JobState::kRunning) {
    // A retransmission of an upload of the last round, whose receipt was
    // lost, still learns that it counted after the job ended.
    const UploadVerdict committed = CommittedUploadVerdict(upload);
    return committed == UploadVerdict::kDuplicate
               ? committed
               : UploadVerdict::kJobNotRunning;
  }
  if (!open.has_value || upload.round_id != open.round_id) {
    // A retransmission whose round has already committed (its receipt was
    // lost) gets the duplicate receipt, so the device learns it counted.
    return CommittedUploadVerdict(upload);
  }
  if (!open.in_cohort[*index]) return UploadVerdict::kNotInCohort;
  auto values = store::DecodeFloats(upload.vector);
  if (!values.ok() || values->size() != static_cast<size_t>(UploadLength(
                                            job_->config, iteration))) {
    return UploadVerdict::kMalformed;
  }
  // The norms the step's clip and noise imply (docs/security.md): one
  // device cannot move the model further than an honest one could, neither
  // in one round nor across its rounds.
  const host::UploadBound bound =
      algorithms::Get(job_->config.algorithm).HonestUpload(job_->config);
  if (!KeepsSumWithinBound(bound, UploadSum{}, *values)) {
    return UploadVerdict::kNormAboveBound;
  }
  if (bound.bounded()) {
    auto sum = sums_->Of(upload.device_id);
    if (!sum.ok()) return UploadVerdict::kStoreUnavailable;
    if (!KeepsSumWithinBound(bound, *sum, *values)) {
      return UploadVerdict::kSumAboveBound;
    }
  }
  auto previous = open.accepted.find(*index);
  if (previous != open.accepted.end()) {
    return Repeats(previous->second, upload)
               ? UploadVerdict::kDuplicate
               : UploadVerdict::kConflictingDuplicate;
  }
  return UploadVerdict::kAccepted;
}

UploadVerdict UploadJudge::CommittedUploadVerdict(const Upload& upload) const {
  auto digest =
      store_->CommittedUploadDigest(upload.round_id, upload.device_id);
  if (!digest.ok()) return UploadVerdict::kStaleRound;
  return *digest == UploadDigest(upload.vector)
             ? UploadVerdict::kDuplicate
             : UploadVerdict::kConflictingDuplicate;
}

}  // namespace edgeadmm::rounds
