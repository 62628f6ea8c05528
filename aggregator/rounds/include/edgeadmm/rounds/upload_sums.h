// UploadSums: the sum of each device's accepted uploads in one job and how
// many there were (table upload_sums), for algorithms whose honest uploads
// are bounded (host::UploadBound). The judge refuses an upload that
// would take a device's sum beyond what that many honest uploads reach
// (docs/security.md, "Influence across rounds"); a round's commit adds its
// uploads in the commit's transaction, so a discarded or lost round adds
// nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "edgeadmm/host/upload_bound.h"
#include "edgeadmm/result.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::rounds {

struct UploadSum {
  int64_t uploads = 0;
  std::vector<double> sum;  // empty while uploads == 0
};

// Whether `upload` keeps the sum within bound.Norm(k + 1, p) (with the
// judge's rounding slack) when `before` holds k uploads.
bool KeepsSumWithinBound(const host::UploadBound& bound,
                         const UploadSum& before,
                         const std::vector<double>& upload);

class UploadSums {
 public:
  // `db` must outlive this object.
  UploadSums(store::Database& db, int64_t job_id) : db_(&db), job_id_(job_id) {}

  // The device's sum so far ({0, {}} when it has none). DATA_LOSS for a
  // damaged row.
  Result<UploadSum> Of(const std::string& device_id) const;
  // Adds `upload` to the device's sum. Runs inside the caller's transaction
  // (RoundStore::CommitRound).
  Status Add(const std::string& device_id, const std::vector<double>& upload);
  // For a job whose rounds committed before the table existed (schema
  // version 8 and older): the sums of its committed uploads, written in one
  // transaction. Does nothing when the job has a sum already.
  Status RebuildIfMissing();

 private:
  store::Database* db_;
  int64_t job_id_;
};

}  // namespace edgeadmm::rounds
