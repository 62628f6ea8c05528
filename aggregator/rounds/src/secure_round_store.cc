// RoundStore: the record of an open secure-aggregation round that lets a
// restart resume it (secure_rounds, schema version 13; round_store.h).
#include <optional>
#include <string>
#include <vector>

#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::rounds {
namespace {

// Identities joined by newlines (a device id holds none).
std::string Join(const std::vector<std::string>& ids) {
  std::string joined;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i != 0) joined += '\n';
    joined += ids[i];
  }
  return joined;
}

std::vector<std::string> Split(const std::string& joined) {
  std::vector<std::string> ids;
  if (joined.empty()) return ids;
  size_t from = 0;
  for (;;) {
    const size_t end = joined.find('\n', from);
    ids.push_back(joined.substr(from, end - from));
    if (end == std::string::npos) return ids;
    from = end + 1;
  }
}

}  // namespace

Status RoundStore::InsertSecureRound(int64_t round_id,
                                     const std::vector<std::string>& cohort,
                                     const std::vector<uint8_t>& rotation_seed,
                                     int64_t deadline_ms) {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement older,
        db_->Prepare("DELETE FROM secure_rounds WHERE job_id = ?"));
    older.Bind(1, job_id_);
    EDGEADMM_TRY(older.Run());
  }
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement insert,
        db_->Prepare("INSERT INTO secure_rounds(job_id, round_id, cohort, "
                     "rotation_seed) VALUES (?, ?, ?, ?)"));
    const std::string joined = Join(cohort);
    insert.Bind(1, job_id_).Bind(2, round_id).Bind(3, joined);
    insert.BindBlob(4, rotation_seed);
    EDGEADMM_TRY(insert.Run());
  }
  EDGEADMM_TRY(SetOpenRoundValue("deadline_at", round_id, deadline_ms));
  return tx.Commit();
}

Status RoundStore::SetCharged(int64_t round_id,
                              const std::vector<std::string>& ids) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("UPDATE secure_rounds SET charged = ? WHERE job_id = ? "
                   "AND round_id = ?"));
  const std::string joined = Join(ids);
  stmt.Bind(1, joined).Bind(2, job_id_).Bind(3, round_id);
  return stmt.Run();
}

Result<std::optional<StoredSecureRound>> RoundStore::ResumableSecureRound() {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  std::optional<StoredSecureRound> round;
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement newest,
        db_->Prepare("SELECT r.round_id, coalesce(r.deadline_at, 0), "
                     "s.cohort, s.rotation_seed, s.charged FROM rounds r "
                     "JOIN secure_rounds s USING (job_id, round_id) WHERE "
                     "r.job_id = ? AND r.state = 'open' ORDER BY r.round_id "
                     "DESC LIMIT 1"));
    newest.Bind(1, job_id_);
    EDGEADMM_TRY_ASSIGN(const bool found, newest.Step());
    if (found) {
      StoredSecureRound& r = round.emplace();
      r.round_id = newest.ColumnInt(0);
      r.deadline_ms = newest.ColumnInt(1);
      r.cohort = Split(newest.ColumnText(2));
      r.rotation_seed = newest.ColumnBlob(3);
      r.charged = !newest.ColumnIsNull(4);
      if (r.charged) r.charged_survivors = Split(newest.ColumnText(4));
      if (r.cohort.empty()) return Status::DataLoss();
    }
  }
  // The others (and all of them without a record) are lost, as
  // MarkOpenRoundsLost; a secure round stores no upload.
  const int64_t keep = round.has_value() ? round->round_id : 0;
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement lose,
        db_->Prepare("UPDATE rounds SET state = 'lost' WHERE job_id = ? AND "
                     "state = 'open' AND round_id != ?"));
    lose.Bind(1, job_id_).Bind(2, keep);
    EDGEADMM_TRY(lose.Run());
  }
  EDGEADMM_TRY(tx.Commit());
  return round;
}

}  // namespace edgeadmm::rounds
