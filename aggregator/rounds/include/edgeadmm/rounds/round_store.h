// RoundStore: every SQL statement of the round engine, for one job.
//
// Tables (aggregator/store/src/schema.cc): rounds (one row per round: open ->
// committed | discarded | lost), uploads (the accepted uploads of committed
// rounds and of the open round, each written before its receipt),
// models (one per committed iteration), ledger (the RDP curve of each
// charged scope after each committed round) and upload_sums (UploadSums). A
// commit is ONE transaction: a crash leaves either all of it or none.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/result.h"
#include "edgeadmm/rounds/model_selection.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/server_update.h"
#include "edgeadmm/rounds/upload.h"
#include "edgeadmm/rounds/upload_sums.h"
#include "edgeadmm/store/database.h"

namespace edgeadmm::rounds {

// The newest committed model and the round that released it (iteration 0,
// round 0 for the job's initial model).
struct StoredModel {
  int64_t iteration = 0;
  int64_t round_id = 0;
  int64_t participants = 0;
  ServerModel model;
};

// One ledger row to write: scope = prefix + id ("central", "central:<id>",
// "local:<id>").
struct LedgerRowRef {
  const char* prefix = "";
  const std::string* id = nullptr;  // null: no id
  const std::vector<double>* rdp = nullptr;
  double epsilon = 0;
  const char* conversion = "";  // of `epsilon`: "classic", "improved", "pld"
  // "party:<id>" rows: what the device reported with the upload (stored in
  // the reported_* columns; null: NULL).
  const ReportedLedger* reported = nullptr;
};

// One accepted upload, written before its receipt.
struct UploadRowRef {
  const std::string* device_id = nullptr;
  const std::vector<uint8_t>* payload = nullptr;  // float32 LE, as received
  // The algorithm's own bytes (Upload::extra), stored opaque when not
  // empty (uploads.extra), else NULL.
  const std::vector<uint8_t>* extra = nullptr;
  // SHA-256 of what a retransmission repeats; null: not stored (NULL).
  const std::vector<uint8_t>* fingerprint_digest = nullptr;
  // The gateway that received it (uploads.gateway); null: one gateway.
  const std::string* gateway = nullptr;
};

// The open round as a standby reads it (RoundEngine::Role::kFollower).
struct FollowedRound {
  int64_t round_id = 0;
  int64_t deadline_ms = 0;          // 0: not stored
  std::vector<std::string> cohort;  // round_cohorts
};

// What InsertSharedUpload did.
enum class SharedInsert {
  kInserted,     // stored now, with its local ledger row
  kExists,       // the device's upload to the round is already stored
  kRoundClosed,  // the round is no longer open: nothing stored
};

// One upload of an open round as stored (RoundStore::ForEachOpenUpload).
struct StoredUpload {
  std::string device_id;
  std::vector<uint8_t> payload;             // float32 LE, as received
  std::vector<uint8_t> fingerprint_digest;  // empty: NULL
};

// An open round a restart resumes (BarrierRounds::ResumesOpenRound), as stored.
struct StoredOpenRound {
  int64_t round_id = 0;
  int64_t retries = 0;  // barrier deadlines it has missed so far
  struct Accepted {
    std::string device_id;
    std::vector<uint8_t> payload;  // float32 LE, as received
    std::vector<uint8_t> fingerprint_digest;
  };
  std::vector<Accepted> uploads;  // by device id
};

// The durable record of an open secure-aggregation round (secure_rounds),
// from which a restart resumes it (RoundStore::ResumableSecureRound).
struct StoredSecureRound {
  int64_t round_id = 0;
  int64_t deadline_ms = 0;          // rounds.deadline_at
  std::vector<std::string> cohort;  // SecAgg+ index order
  std::vector<uint8_t> rotation_seed;
  bool charged = false;  // ChargeOpenRound stored the survivors' charges
  std::vector<std::string> charged_survivors;
};

// Everything a committed round writes.
struct RoundCommit {
  int64_t round_id = 0;
  int64_t iteration = 0;   // the new model's
  RoundMechanism central;  // stored with the round (job ledger, export)
  int64_t closed_at_ms = 0;
  // Accepted uploads; they are already in the store (InsertAcceptedUpload):
  // the commit checks their count.
  int64_t participants = 0;
  const ServerModel* model = nullptr;
  std::vector<LedgerRowRef> ledger;
  // The new model's validation scores (null: not validated).
  const ValidationMetrics* metrics = nullptr;
  bool completes_job = false;  // the job's last round: state 'completed'
  std::string end_reason;      // with completes_job
  // Added to the devices' UploadSums (algorithms with an UploadBound; empty
  // otherwise): device id and decoded upload of each participant.
  std::vector<std::pair<const std::string*, const std::vector<double>*>>
      summed_uploads;
  // A secure-aggregation round: its participants sent no upload, so the
  // commit checks that none is stored.
  bool secure_sum = false;
};

class RoundStore {
 public:
  // `db` must outlive the store.
  RoundStore(store::Database& db, int64_t job_id) : db_(&db), job_id_(job_id) {}

  // Rounds a crash left 'open' become 'lost' (their uploads are deleted,
  // their charges stay).
  Status MarkOpenRoundsLost();
  // BarrierRounds::ResumesOpenRound: the newest round a crash left 'open', with
  // its stored uploads (nullopt: none). Older open rounds become 'lost' and
  // their uploads are deleted. DATA_LOSS for a damaged row.
  Result<std::optional<StoredOpenRound>> ResumableOpenRound();
  // A barrier round's retries so far (they survive a restart).
  Status SetRetries(int64_t round_id, int64_t retries);
  // The newest model (DATA_LOSS if its blobs are damaged).
  Result<StoredModel> LatestModel();
  // Calls `model(scored)` for every validated model, by iteration.
  Status ForEachValidatedModel(
      const std::function<void(const ScoredModel&)>& model);
  // One more than the largest round id ever used (ids are never reused).
  Result<int64_t> NextRoundId();
  // Calls `row(scope, rdp)` for the newest row of every ledger scope.
  Status ForEachLatestLedger(
      const std::function<Status(const std::string& scope,
                                 std::vector<double> rdp)>& row);
  // The job's state as stored (the CLI may change it).
  Result<jobs::JobState> JobState();

  // Writes round `round_id` as open, in one statement with the check that
  // the job is still running: false (nothing written) when the CLI has
  // stopped it since the engine last read its state, so no round opens in a
  // finished job.
  Result<bool> InsertOpenRound(int64_t round_id, int64_t cohort_size,
                               int64_t started_at_ms, int64_t deadline_ms);
  // The open round's cohort after revoked members left it.
  Status SetCohortSize(int64_t round_id, int64_t cohort_size);
  // The job's devices that are disabled or no longer in the registry.
  Result<std::vector<std::string>> RevokedDevices();
  // The job's devices with a lifetime budget on `ledger` in the registry.
  Result<std::unordered_map<std::string, registry::LifetimeBudget>>
  LifetimeBudgets(registry::LifetimeLedger ledger);
  // For each device of `ids`: the sum over every OTHER job of its newest
  // curve of `ledger` (RDP composes across jobs): `local:<id>`, or
  // `central:<id>` and, in a job that charged no device's central ledger
  // (trusted-aggregator), the job's `central` curve for each of its
  // devices. Devices without one are absent. DATA_LOSS for a curve of the
  // wrong length.
  Result<std::unordered_map<std::string, std::vector<double>>> EarlierCurves(
      registry::LifetimeLedger ledger,
      const std::unordered_set<std::string>& ids, size_t order_count);
  // The round's stored uploads go in the same transaction: the uploads
  // table keeps those of committed rounds (and of the open one) only.
  // `ledger`: the charges of a round whose mechanism ran but whose result
  // is not released (a model beyond float32's range), in the same
  // transaction.
  Status DiscardRound(int64_t round_id, int64_t participants,
                      int64_t closed_at_ms,
                      const std::vector<LedgerRowRef>& ledger = {});
  // Writes the whole round in one transaction; the round must be 'open'.
  Status CommitRound(const RoundCommit& commit);
  // A secure round's charges before its sum is unmasked: `ledger` in one
  // transaction with the check that round `round_id` is still 'open'
  // (FAILED_PRECONDITION, nothing written, when it is not).
  // `survivors` (not null): also recorded as the round's charged
  // survivors in its secure_rounds row.
  Status ChargeOpenRound(int64_t round_id,
                         const std::vector<LedgerRowRef>& ledger,
                         const std::vector<std::string>* survivors = nullptr);
  // Secure rounds that survive a restart (secure_round_store.cc).
  // The open round `round_id`'s record (cohort in index order, rotation
  // seed) and its deadline in one transaction; the job's older records
  // are deleted.
  Status InsertSecureRound(int64_t round_id,
                           const std::vector<std::string>& cohort,
                           const std::vector<uint8_t>& rotation_seed,
                           int64_t deadline_ms);
  // The newest open round with a record (nullopt: none). Every other open
  // round becomes 'lost' (charges kept), as after a crash without it.
  // DATA_LOSS for a damaged record.
  Result<std::optional<StoredSecureRound>> ResumableSecureRound();
  // Whether round `round_id` holds ledger rows (a secure round: charged).
  Result<bool> RoundCharged(int64_t round_id);
  // The accepted upload of open round `round_id`, its local ledger row and
  // its per-party ledger row (null: none) in one transaction, synced to disk
  // (synchronous=FULL) before the receipt goes out: a restart or a power cut
  // finds all of them or none.
  Status InsertAcceptedUpload(int64_t round_id, const LedgerRowRef& local,
                              const LedgerRowRef* party,
                              const UploadRowRef& upload);
  // Rounds shared with standbys (round_store_shared.cc; docs/aggregator.md,
  // "Several gateways on one database").
  // InsertOpenRound and the round's cohort (round_cohorts) in one
  // transaction, so a standby never sees the round without its cohort.
  Result<bool> InsertSharedOpenRound(
      int64_t round_id, int64_t started_at_ms, int64_t deadline_ms,
      const std::vector<const std::string*>& cohort);
  // The newest open round with its deadline and cohort (nullopt: none).
  Result<std::optional<FollowedRound>> FollowedOpenRound();
  // One transaction: if round `round_id` is still open and holds no upload
  // of the device, the upload and its local ledger row are inserted
  // (kInserted); if it holds one, `*stored_fingerprint` is that upload's
  // fingerprint digest (kExists); if the round is closed, nothing
  // (kRoundClosed). Transactions are serialized across processes
  // (Transaction::Begin), so no upload lands in a committed round and a
  // device's upload to a round is stored once, whichever gateway got it.
  Result<SharedInsert> InsertSharedUpload(
      int64_t round_id, const LedgerRowRef& local, const UploadRowRef& upload,
      std::vector<uint8_t>* stored_fingerprint);
  // How many uploads round `round_id` holds.
  Result<int64_t> StoredUploadCount(int64_t round_id);
  // Calls `upload(row)` for every upload of round `round_id` stored by a
  // gateway other than `gateway` (NULL gateways included).
  Status ForEachUploadFromOthers(
      int64_t round_id, const std::string& gateway,
      const std::function<Status(StoredUpload row)>& upload);

  // SHA-256 digest of the upload `device_id` made to committed round
  // `round_id`; NOT_FOUND if it made none (or the round is not committed).
  Result<std::vector<uint8_t>> CommittedUploadDigest(
      int64_t round_id, const std::string& device_id) const;
  // Calls `upload(device_id, values)` for every upload of committed round
  // `round_id` (DATA_LOSS if a payload is damaged).
  Status ForEachCommittedUpload(
      int64_t round_id,
      const std::function<void(const std::string& device_id,
                               std::vector<double> values)>& upload) const;

 private:
  Status InsertLedgerRow(int64_t round_id, const LedgerRowRef& row);
  Status InsertUploadRow(int64_t round_id, const UploadRowRef& row);
  // UPDATE rounds SET `column` = value of the open round `round_id`.
  Status SetOpenRoundValue(const char* column, int64_t round_id, int64_t value);
  // secure_rounds.charged of round `round_id` (inside a transaction).
  Status SetCharged(int64_t round_id, const std::vector<std::string>& ids);

  store::Database* db_;
  int64_t job_id_;
  std::string scope_;  // one buffer for the scopes of all ledger rows
};

}  // namespace edgeadmm::rounds
