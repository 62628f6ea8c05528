#include "edgeadmm/rounds/round_store.h"

#include <optional>
#include <string>
#include <utility>

#include "edgeadmm/rounds/upload_digest.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::rounds {

Status RoundStore::MarkOpenRoundsLost() {
  // The uploads table keeps those of committed rounds (and of the open one)
  // only: a lost round released nothing, its charges stay in the ledger.
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  for (const char* sql :
       {"DELETE FROM uploads WHERE job_id = ?1 AND round_id IN (SELECT "
        "round_id FROM rounds WHERE job_id = ?1 AND state = 'open')",
        "UPDATE rounds SET state = 'lost' WHERE job_id = ?1 AND state = "
        "'open'"}) {
    EDGEADMM_TRY_ASSIGN(store::Statement stmt, db_->Prepare(sql));
    stmt.Bind(1, job_id_);
    EDGEADMM_TRY(stmt.Run());
  }
  return tx.Commit();
}

Result<std::optional<StoredOpenRound>> RoundStore::ResumableOpenRound() {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  std::optional<StoredOpenRound> round;
  {
    EDGEADMM_TRY_ASSIGN(
        store::Statement newest,
        db_->Prepare("SELECT round_id, retries FROM rounds WHERE job_id = ? "
                     "AND state = 'open' ORDER BY round_id DESC LIMIT 1"));
    newest.Bind(1, job_id_);
    EDGEADMM_TRY_ASSIGN(const bool found, newest.Step());
    if (found) {
      round.emplace();
      round->round_id = newest.ColumnInt(0);
      round->retries = newest.ColumnInt(1);
    }
  }
  // Only one round is ever open; an older one (its commit failed) is lost
  // with its uploads, as after a crash without this algorithm.
  const int64_t keep = round.has_value() ? round->round_id : 0;
  for (const char* sql :
       {"DELETE FROM uploads WHERE job_id = ?1 AND round_id IN (SELECT "
        "round_id FROM rounds WHERE job_id = ?1 AND state = 'open' AND "
        "round_id != ?2)",
        "UPDATE rounds SET state = 'lost' WHERE job_id = ?1 AND state = "
        "'open' AND round_id != ?2"}) {
    EDGEADMM_TRY_ASSIGN(store::Statement stmt, db_->Prepare(sql));
    stmt.Bind(1, job_id_).Bind(2, keep);
    EDGEADMM_TRY(stmt.Run());
  }
  if (round.has_value()) {
    EDGEADMM_TRY_ASSIGN(
        store::Statement uploads,
        db_->Prepare("SELECT device_id, payload, fingerprint FROM uploads "
                     "WHERE job_id = ? AND round_id = ? ORDER BY device_id"));
    uploads.Bind(1, job_id_).Bind(2, round->round_id);
    EDGEADMM_TRY(uploads.ForEachRow([&]() -> Status {
      // Written by InsertAcceptedUpload, always with its fingerprint.
      if (uploads.ColumnIsNull(2)) return Status::DataLoss();
      StoredOpenRound::Accepted& a = round->uploads.emplace_back();
      a.device_id = uploads.ColumnText(0);
      a.payload = uploads.ColumnBlob(1);
      a.fingerprint_digest = uploads.ColumnBlob(2);
      return Status::Ok();
    }));
  }
  EDGEADMM_TRY(tx.Commit());
  return round;
}

Status RoundStore::SetRetries(int64_t round_id, int64_t retries) {
  return SetOpenRoundValue("retries", round_id, retries);
}

Status RoundStore::SetOpenRoundValue(const char* column, int64_t round_id,
                                     int64_t value) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare(std::string("UPDATE rounds SET ") + column +
                   " = ? WHERE job_id = ? AND round_id = ? AND state = "
                   "'open'"));
  stmt.Bind(1, value).Bind(2, job_id_).Bind(3, round_id);
  return stmt.Run();
}

Result<StoredModel> RoundStore::LatestModel() {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT m.iteration, m.z, m.server_state, m.round_id, "
                   "coalesce(r.participants, 0) FROM models m LEFT JOIN "
                   "rounds r USING (job_id, round_id) WHERE m.job_id = ? "
                   "ORDER BY m.iteration DESC LIMIT 1"));
  stmt.Bind(1, job_id_);
  EDGEADMM_TRY(stmt.StepRow());
  StoredModel stored;
  stored.iteration = stmt.ColumnInt(0);
  stored.round_id = stmt.ColumnInt(3);
  stored.participants = stmt.ColumnInt(4);
  EDGEADMM_TRY_ASSIGN(stored.model.z, store::DecodeDoubles(stmt.ColumnBlob(1)));
  EDGEADMM_TRY_ASSIGN(stored.model.state,
                      store::DecodeDoubles(stmt.ColumnBlob(2)));
  return stored;
}

Status RoundStore::ForEachValidatedModel(
    const std::function<void(const ScoredModel&)>& model) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT iteration, round_id, validation_loss, "
                   "validation_objective, validation_accuracy FROM models "
                   "WHERE job_id = ? AND validation_loss IS NOT NULL ORDER "
                   "BY iteration"));
  stmt.Bind(1, job_id_);
  return stmt.ForEachRow([&] {
    ScoredModel scored;
    scored.iteration = stmt.ColumnInt(0);
    scored.round_id = stmt.ColumnInt(1);
    scored.metrics.loss = stmt.ColumnDouble(2);
    scored.metrics.objective = stmt.ColumnDouble(3);
    scored.metrics.has_accuracy = !stmt.ColumnIsNull(4);
    if (scored.metrics.has_accuracy) {
      scored.metrics.accuracy = stmt.ColumnDouble(4);
    }
    model(scored);
    return Status::Ok();
  });
}

Result<int64_t> RoundStore::NextRoundId() {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT coalesce(max(round_id), 0) + 1 FROM rounds WHERE "
                   "job_id = ?"));
  stmt.Bind(1, job_id_);
  EDGEADMM_TRY(stmt.StepRow());
  return stmt.ColumnInt(0);
}

Status RoundStore::ForEachLatestLedger(
    const std::function<Status(const std::string& scope,
                               std::vector<double> rdp)>& row) {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT scope, rdp FROM ledger WHERE job_id = ?1 AND "
                   "(scope, round_id) IN (SELECT scope, max(round_id) FROM "
                   "ledger WHERE job_id = ?1 GROUP BY scope)"));
  stmt.Bind(1, job_id_);
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool has_row, stmt.Step());
    if (!has_row) return Status::Ok();
    EDGEADMM_TRY_ASSIGN(std::vector<double> rdp,
                        store::DecodeDoubles(stmt.ColumnBlob(1)));
    EDGEADMM_TRY(row(stmt.ColumnText(0), std::move(rdp)));
  }
}

Result<jobs::JobState> RoundStore::JobState() {
  // Cached: the daemon asks every 10 ms.
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT state FROM jobs WHERE id = ?"));
  stmt->Bind(1, job_id_);
  EDGEADMM_TRY(stmt->StepRow());
  return jobs::ParseJobState(stmt->ColumnText(0));
}

Result<bool> RoundStore::InsertOpenRound(int64_t round_id, int64_t cohort_size,
                                         int64_t started_at_ms,
                                         int64_t deadline_ms) {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("INSERT INTO rounds(job_id, round_id, state, "
                         "cohort_size, started_at, deadline_at) SELECT ?1, "
                         "?2, 'open', ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM "
                         "jobs WHERE id = ?1 AND state = 'running')"));
  stmt->Bind(1, job_id_)
      .Bind(2, round_id)
      .Bind(3, cohort_size)
      .Bind(4, started_at_ms)
      .Bind(5, deadline_ms);
  EDGEADMM_TRY(stmt->Run());
  return db_->Changes() == 1;
}

Status RoundStore::SetCohortSize(int64_t round_id, int64_t cohort_size) {
  return SetOpenRoundValue("cohort_size", round_id, cohort_size);
}

Result<std::vector<std::string>> RoundStore::RevokedDevices() {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached(
          "SELECT j.device_id FROM job_devices j LEFT JOIN devices d ON "
          "d.id = j.device_id WHERE j.job_id = ? AND "
          "(d.id IS NULL OR d.enabled = 0)"));
  stmt->Bind(1, job_id_);
  std::vector<std::string> ids;
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool row, stmt->Step());
    if (!row) break;
    ids.push_back(stmt->ColumnText(0));
  }
  return ids;
}

Result<std::unordered_map<std::string, registry::LifetimeBudget>>
RoundStore::LifetimeBudgets(registry::LifetimeLedger ledger) {
  const bool local = ledger == registry::LifetimeLedger::kLocal;
  // Cached: asked at every round's opening.
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached(
          local ? "SELECT d.id, d.lifetime_epsilon, d.lifetime_delta FROM "
                  "job_devices j JOIN devices d ON d.id = j.device_id WHERE "
                  "j.job_id = ? AND d.lifetime_epsilon IS NOT NULL"
                : "SELECT d.id, d.central_epsilon, d.central_delta FROM "
                  "job_devices j JOIN devices d ON d.id = j.device_id WHERE "
                  "j.job_id = ? AND d.central_epsilon IS NOT NULL"));
  stmt->Bind(1, job_id_);
  std::unordered_map<std::string, registry::LifetimeBudget> budgets;
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool row, stmt->Step());
    if (!row) break;
    budgets[stmt->ColumnText(0)] = {stmt->ColumnDouble(1),
                                    stmt->ColumnDouble(2)};
  }
  return budgets;
}

namespace {

// Adds every (device id, curve) row of `stmt` whose id is in `ids` to
// `sums`.
Status SumCurves(store::Statement& stmt,
                 const std::unordered_set<std::string>& ids, size_t order_count,
                 std::unordered_map<std::string, std::vector<double>>& sums) {
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool has_row, stmt.Step());
    if (!has_row) return Status::Ok();
    const std::string id = stmt.ColumnText(0);
    if (ids.count(id) == 0) continue;
    EDGEADMM_TRY_ASSIGN(const std::vector<double> rdp,
                        store::DecodeDoubles(stmt.ColumnBlob(1)));
    if (rdp.size() != order_count) return Status::DataLoss();
    ComposeRdp(sums.try_emplace(id, order_count, 0.0).first->second, rdp);
  }
}

}  // namespace

Result<std::unordered_map<std::string, std::vector<double>>>
RoundStore::EarlierCurves(registry::LifetimeLedger ledger,
                          const std::unordered_set<std::string>& ids,
                          size_t order_count) {
  std::unordered_map<std::string, std::vector<double>> sums;
  if (ids.empty()) return sums;
  const bool local = ledger == registry::LifetimeLedger::kLocal;
  // One pass over the other jobs' per-device scopes ('local:' <= scope <
  // 'local;', likewise 'central:'), the newest row of each through the
  // primary key.
  EDGEADMM_TRY_ASSIGN(
      store::Statement per_device,
      db_->Prepare(
          local ? "SELECT substr(scope, 7), rdp FROM ledger AS l WHERE "
                  "l.job_id != ?1 AND l.scope >= 'local:' AND l.scope < "
                  "'local;' AND l.round_id = (SELECT max(round_id) FROM "
                  "ledger WHERE job_id = l.job_id AND scope = l.scope)"
                : "SELECT substr(scope, 9), rdp FROM ledger AS l WHERE "
                  "l.job_id != ?1 AND l.scope >= 'central:' AND l.scope < "
                  "'central;' AND l.round_id = (SELECT max(round_id) FROM "
                  "ledger WHERE job_id = l.job_id AND scope = l.scope)"));
  per_device.Bind(1, job_id_);
  EDGEADMM_TRY(SumCurves(per_device, ids, order_count, sums));
  if (local) return sums;
  // A trusted-aggregator job charges its one `central` curve to each of
  // its devices, sampled or not (Poisson amplification counts them all).
  EDGEADMM_TRY_ASSIGN(
      store::Statement shared,
      db_->Prepare(
          "SELECT j.device_id, l.rdp FROM ledger AS l JOIN job_devices AS j "
          "ON j.job_id = l.job_id WHERE l.job_id != ?1 AND l.scope = "
          "'central' AND l.round_id = (SELECT max(round_id) FROM ledger "
          "WHERE job_id = l.job_id AND scope = 'central') AND NOT EXISTS "
          "(SELECT 1 FROM ledger AS x WHERE x.job_id = l.job_id AND x.scope "
          ">= 'central:' AND x.scope < 'central;')"));
  shared.Bind(1, job_id_);
  EDGEADMM_TRY(SumCurves(shared, ids, order_count, sums));
  return sums;
}

Status RoundStore::DiscardRound(int64_t round_id, int64_t participants,
                                int64_t closed_at_ms,
                                const std::vector<LedgerRowRef>& ledger) {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement gone,
        db_->PrepareCached(
            "DELETE FROM uploads WHERE job_id = ? AND round_id = ?"));
    gone->Bind(1, job_id_).Bind(2, round_id);
    EDGEADMM_TRY(gone->Run());
  }
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement stmt,
        db_->PrepareCached("UPDATE rounds SET state = 'discarded', "
                           "participants = ?, closed_at = ? WHERE job_id = ? "
                           "AND round_id = ?"));
    stmt->Bind(1, participants)
        .Bind(2, closed_at_ms)
        .Bind(3, job_id_)
        .Bind(4, round_id);
    EDGEADMM_TRY(stmt->Run());
  }
  for (const LedgerRowRef& row : ledger) {
    EDGEADMM_TRY(InsertLedgerRow(round_id, row));
  }
  return tx.Commit();
}

Status RoundStore::CommitRound(const RoundCommit& commit) {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement round,
      db_->PrepareCached("UPDATE rounds SET state = 'committed', iteration = "
                         "?, participants = ?, noise_multiplier = ?, "
                         "sampling_rate = ?, closed_at = ? WHERE job_id = ? "
                         "AND round_id = ? AND state = 'open'"));
  round->Bind(1, commit.iteration)
      .Bind(2, commit.participants)
      .Bind(3, commit.central.noise_multiplier)
      .Bind(4, commit.central.sampling_rate)
      .Bind(5, commit.closed_at_ms)
      .Bind(6, job_id_)
      .Bind(7, commit.round_id);
  EDGEADMM_TRY(round->Run());
  {
    // Stored as they were accepted (InsertAcceptedUpload): the round
    // commits exactly those.
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement stored,
        db_->PrepareCached("SELECT count(*) FROM uploads WHERE job_id = ? "
                           "AND round_id = ?"));
    stored->Bind(1, job_id_).Bind(2, commit.round_id);
    EDGEADMM_TRY(stored->StepRow());
    if (stored->ColumnInt(0) != (commit.secure_sum ? 0 : commit.participants)) {
      return Status::DataLoss();
    }
  }
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement model,
      db_->PrepareCached("INSERT INTO models(job_id, iteration, round_id, z, "
                         "server_state, validation_loss, "
                         "validation_objective, validation_accuracy, "
                         "test_records, test_log_loss, test_accuracy) VALUES "
                         "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  model->Bind(1, job_id_)
      .Bind(2, commit.iteration)
      .Bind(3, commit.round_id)
      .BindDoubles(4, commit.model->z)
      .BindDoubles(5, commit.model->state);
  if (commit.metrics != nullptr) {
    model->Bind(6, commit.metrics->loss).Bind(7, commit.metrics->objective);
    if (commit.metrics->has_accuracy) model->Bind(8, commit.metrics->accuracy);
  }
  // The gateway's test score of this model (ServerModel::test_score), if
  // the algorithm's server update made one.
  const algorithms::TestScore& test = commit.model->test_score;
  if (test.records > 0) {
    model->Bind(9, test.records)
        .Bind(10, test.log_loss)
        .Bind(11, test.accuracy);
  }
  EDGEADMM_TRY(model->Run());
  for (const LedgerRowRef& row : commit.ledger) {
    EDGEADMM_TRY(InsertLedgerRow(commit.round_id, row));
  }
  UploadSums sums(*db_, job_id_);
  for (const auto& [device_id, upload] : commit.summed_uploads) {
    EDGEADMM_TRY(sums.Add(*device_id, *upload));
  }
  if (commit.completes_job) {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement done,
        db_->PrepareCached("UPDATE jobs SET state = 'completed', end_reason = "
                           "? WHERE id = ?"));
    done->Bind(1, commit.end_reason).Bind(2, job_id_);
    EDGEADMM_TRY(done->Run());
  }
  return tx.Commit();
}

Status RoundStore::ChargeOpenRound(int64_t round_id,
                                   const std::vector<LedgerRowRef>& ledger,
                                   const std::vector<std::string>* survivors) {
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement open,
        db_->PrepareCached("SELECT count(*) FROM rounds WHERE job_id = ? AND "
                           "round_id = ? AND state = 'open'"));
    open->Bind(1, job_id_).Bind(2, round_id);
    EDGEADMM_TRY(open->StepRow());
    if (open->ColumnInt(0) != 1) return Status::FailedPrecondition();
  }
  for (const LedgerRowRef& row : ledger) {
    EDGEADMM_TRY(InsertLedgerRow(round_id, row));
  }
  if (survivors != nullptr) EDGEADMM_TRY(SetCharged(round_id, *survivors));
  return tx.Commit();
}

Result<bool> RoundStore::RoundCharged(int64_t round_id) {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement rows,
      db_->PrepareCached(
          "SELECT count(*) FROM ledger WHERE job_id = ? AND round_id = ?"));
  rows->Bind(1, job_id_).Bind(2, round_id);
  EDGEADMM_TRY(rows->StepRow());
  return rows->ColumnInt(0) > 0;
}

Status RoundStore::InsertAcceptedUpload(int64_t round_id,
                                        const LedgerRowRef& local,
                                        const LedgerRowRef* party,
                                        const UploadRowRef& upload) {
  // synchronous=FULL (the connection's setting): the commit is fsynced, so
  // the receipt the device gets (after which it drops its upload) is backed
  // by the disk, not only by the process (docs/security.md, "Durable
  // receipts and write failures").
  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY(InsertLedgerRow(round_id, local));
  if (party != nullptr) EDGEADMM_TRY(InsertLedgerRow(round_id, *party));
  EDGEADMM_TRY(InsertUploadRow(round_id, upload));
  return tx.Commit();
}

Status RoundStore::InsertUploadRow(int64_t round_id, const UploadRowRef& row) {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement upload,
      db_->PrepareCached("INSERT INTO uploads(job_id, round_id, device_id, "
                         "digest, payload, extra, fingerprint, gateway) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  upload->Bind(1, job_id_)
      .Bind(2, round_id)
      .Bind(3, *row.device_id)
      .BindBlob(4, UploadDigest(*row.payload))
      .BindBlob(5, *row.payload);
  if (row.extra != nullptr && !row.extra->empty()) {
    upload->BindBlob(6, *row.extra);
  } else {
    upload->BindNull(6);
  }
  if (row.fingerprint_digest != nullptr) {
    upload->BindBlob(7, *row.fingerprint_digest);
  } else {
    upload->BindNull(7);
  }
  if (row.gateway != nullptr) {
    upload->Bind(8, *row.gateway);
  } else {
    upload->BindNull(8);
  }
  return upload->Run();
}

Status RoundStore::InsertLedgerRow(int64_t round_id, const LedgerRowRef& row) {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement ledger,
      db_->PrepareCached("INSERT INTO ledger(job_id, scope, round_id, "
                         "epsilon, rdp, conversion, reported_participations, "
                         "reported_epsilon, reported_delta, "
                         "reported_conversion) VALUES (?, ?, ?, ?, ?, ?, ?, "
                         "?, ?, ?)"));
  scope_.assign(row.prefix);
  if (row.id != nullptr) scope_.append(*row.id);
  ledger->Bind(1, job_id_)
      .Bind(2, scope_)
      .Bind(3, round_id)
      .Bind(4, row.epsilon)
      .BindDoubles(5, *row.rdp)
      .Bind(6, row.conversion);
  if (row.reported != nullptr && row.reported->present) {
    ledger->Bind(7, row.reported->participations)
        .Bind(8, row.reported->epsilon)
        .Bind(9, row.reported->delta)
        .Bind(10, row.reported->conversion);
  } else {
    for (int i = 7; i <= 10; ++i) ledger->BindNull(i);
  }
  return ledger->Run();
}

Result<std::vector<uint8_t>> RoundStore::CommittedUploadDigest(
    int64_t round_id, const std::string& device_id) const {
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT u.digest FROM uploads u JOIN rounds r "
                         "USING (job_id, round_id) WHERE u.job_id = ? AND "
                         "u.round_id = ? AND u.device_id = ? AND r.state = "
                         "'committed'"));
  stmt->Bind(1, job_id_).Bind(2, round_id).Bind(3, device_id);
  EDGEADMM_TRY(stmt->StepRow());
  return stmt->ColumnBlob(0);
}

Status RoundStore::ForEachCommittedUpload(
    int64_t round_id,
    const std::function<void(const std::string&, std::vector<double>)>& upload)
    const {
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT device_id, payload FROM uploads WHERE job_id = ? "
                   "AND round_id = ?"));
  stmt.Bind(1, job_id_).Bind(2, round_id);
  return stmt.ForEachRow([&]() -> Status {
    EDGEADMM_TRY_ASSIGN(std::vector<double> values,
                        store::DecodeFloats(stmt.ColumnBlob(1)));
    upload(stmt.ColumnText(0), std::move(values));
    return Status::Ok();
  });
}

}  // namespace edgeadmm::rounds
