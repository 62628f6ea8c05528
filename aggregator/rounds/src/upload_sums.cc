#include "edgeadmm/rounds/upload_sums.h"

#include <cmath>
#include <map>

#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::rounds {
namespace {

// Headroom for the device's float arithmetic and the float32 encoding.
constexpr double kRoundingSlack = 1e-5;

void AddInto(std::vector<double>& sum, const std::vector<double>& upload) {
  if (sum.empty()) sum.assign(upload.size(), 0.0);
  for (size_t j = 0; j < sum.size() && j < upload.size(); ++j) {
    sum[j] += upload[j];
  }
}

}  // namespace

bool KeepsSumWithinBound(const host::UploadBound& bound,
                         const UploadSum& before,
                         const std::vector<double>& upload) {
  if (!bound.bounded()) return true;
  if (!before.sum.empty() && before.sum.size() != upload.size()) return false;
  double norm2 = 0;
  for (size_t j = 0; j < upload.size(); ++j) {
    const double v = upload[j] + (before.sum.empty() ? 0.0 : before.sum[j]);
    norm2 += v * v;
  }
  const double limit =
      bound.Norm(before.uploads + 1, static_cast<int64_t>(upload.size()));
  return std::sqrt(norm2) <= limit * (1 + kRoundingSlack);
}

Result<UploadSum> UploadSums::Of(const std::string& device_id) const {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT uploads, sum FROM upload_sums WHERE job_id "
                         "= ? AND device_id = ?"));
  stmt->Bind(1, job_id_).Bind(2, device_id);
  EDGEADMM_TRY_ASSIGN(const bool found, stmt->Step());
  UploadSum sum;
  if (!found) return sum;
  sum.uploads = stmt->ColumnInt(0);
  EDGEADMM_TRY_ASSIGN(sum.sum, store::DecodeDoubles(stmt->ColumnBlob(1)));
  if (sum.uploads <= 0 || sum.sum.empty()) return Status::DataLoss();
  return sum;
}

Status UploadSums::Add(const std::string& device_id,
                       const std::vector<double>& upload) {
  EDGEADMM_TRY_ASSIGN(UploadSum sum, Of(device_id));
  if (!sum.sum.empty() && sum.sum.size() != upload.size()) {
    return Status::DataLoss();
  }
  AddInto(sum.sum, upload);
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached(
          "INSERT INTO upload_sums(job_id, device_id, uploads, sum) VALUES "
          "(?, ?, ?, ?) ON CONFLICT(job_id, device_id) DO UPDATE SET "
          "uploads = excluded.uploads, sum = excluded.sum"));
  stmt->Bind(1, job_id_)
      .Bind(2, device_id)
      .Bind(3, sum.uploads + 1)
      .BindDoubles(4, sum.sum);
  return stmt->Run();
}

Status UploadSums::RebuildIfMissing() {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement any,
        db_->Prepare("SELECT 1 FROM upload_sums WHERE job_id = ? LIMIT 1"));
    any.Bind(1, job_id_);
    EDGEADMM_TRY_ASSIGN(const bool found, any.Step());
    if (found) return Status::Ok();  // the transaction rolls back: no writes
  }
  std::map<std::string, UploadSum> sums;
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement uploads,
        db_->Prepare("SELECT u.device_id, u.payload FROM uploads u JOIN "
                     "rounds r USING (job_id, round_id) WHERE u.job_id = ? "
                     "AND r.state = 'committed'"));
    uploads.Bind(1, job_id_);
    EDGEADMM_TRY(uploads.ForEachRow([&]() -> Status {
      EDGEADMM_TRY_ASSIGN(std::vector<double> values,
                          store::DecodeFloats(uploads.ColumnBlob(1)));
      UploadSum& sum = sums[uploads.ColumnText(0)];
      if (!sum.sum.empty() && sum.sum.size() != values.size()) {
        return Status::DataLoss();
      }
      AddInto(sum.sum, values);
      ++sum.uploads;
      return Status::Ok();
    }));
  }
  EDGEADMM_TRY_ASSIGN(
      store::Statement insert,
      db_->Prepare("INSERT INTO upload_sums(job_id, device_id, uploads, sum) "
                   "VALUES (?, ?, ?, ?)"));
  for (const auto& [device_id, sum] : sums) {
    insert.Bind(1, job_id_)
        .Bind(2, device_id)
        .Bind(3, sum.uploads)
        .BindDoubles(4, sum.sum);
    EDGEADMM_TRY(insert.Run());
    EDGEADMM_TRY(insert.Reset());
  }
  return tx.Commit();
}

}  // namespace edgeadmm::rounds
