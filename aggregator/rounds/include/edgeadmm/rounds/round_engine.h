// RoundEngine: the round state machine of one job. Its SQL is RoundStore's,
// its privacy ledgers LedgerBook's, its acceptance rules UploadJudge's.
//
// No network and no clock of its own: the daemon (or a test) feeds it
// uploads and the current time. Life of a round (docs/architecture.md):
//   Advance: budget check -> secret cohort (CSPRNG) -> round row 'open'
//   Submit:  acceptance rules, at most one upload per (device, round)
//   Advance: at the deadline, or as soon as the whole cohort uploaded (in
//            Submit, or the next Advance with set_close_in_advance):
//            >= m_min uploads: ONE transaction writes the accepted uploads,
//            the new model and the ledger charges ('committed');
//            otherwise 'discarded', nothing released or charged.
// Every accepted upload is in the store with its charges, fsynced, before
// its receipt. A crash loses at most the open round: Open() marks it 'lost'
// (its charges stay) and the next round gets a new id, so uploads for the
// lost round are refused as stale. Under BarrierRounds::ResumesOpenRound
// nothing is lost: Open() resumes the open round under its id
// with the stored uploads (docs/aggregator.md, "A restart loses nothing").
// A failed write (full disk, read-only file system, failed fsync) changes
// nothing in memory: Advance retries it, and Submit refuses new uploads
// until it succeeds (docs/security.md, "Durable receipts and write
// failures").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "edgeadmm/jobs/job_store.h"
#include "edgeadmm/registry/device_registry.h"
#include "edgeadmm/rounds/ledger_book.h"
#include "edgeadmm/rounds/lifetime_reservations.h"
#include "edgeadmm/rounds/model_selection.h"
#include "edgeadmm/rounds/open_round.h"
#include "edgeadmm/rounds/party_ledger.h"
#include "edgeadmm/rounds/round_accountant.h"
#include "edgeadmm/rounds/round_store.h"
#include "edgeadmm/rounds/round_summary.h"
#include "edgeadmm/rounds/sampling_rng.h"
#include "edgeadmm/rounds/secure_round.h"
#include "edgeadmm/rounds/server_update.h"
#include "edgeadmm/rounds/upload.h"
#include "edgeadmm/rounds/upload_judge.h"
#include "edgeadmm/rounds/validator.h"
#include "edgeadmm/secagg/ddg_plan.h"

namespace edgeadmm::rounds {

// What a device is told to do now.
struct Task {
  enum class Kind { kTrain, kWait, kFinished };
  Kind kind = Kind::kWait;
  int64_t job_id = 0;
  int64_t round_id = 0;   // the open round (0 if none)
  int64_t iteration = 0;  // committed rounds so far = version of z
  int64_t deadline_ms = 0;
  std::vector<double> z;  // the current released model, or the node's own
                          // vector (NodeTasks::PerNodeTasks)
  int64_t node = -1;      // the device's index in the job (-1: not enrolled)
  // A secure-aggregation round's member (kTrain): the encoding it sends
  // through the SecAgg+ phases (RoundTask.secure_aggregation).
  bool secure = false;
  DdgRoundPlan ddg;
  std::array<std::byte, 32> rotation_seed{};
};

class RoundEngine {
 public:
  // What the engine is among the gateways on one database (docs/aggregator.md,
  // "Several gateways on one database"; round_follower.cc).
  enum class Role {
    // The only gateway: every upload arrives here.
    kSole,
    // Holds the job's coordinator lease while standbys serve it: also
    // stores each round's cohort and deadline, stores uploads only while
    // their round is open and once per device, and takes the uploads the
    // standbys stored into the round before it closes it.
    kCoordinator,
    // A standby: follows the coordinator's open round from the store
    // (round, cohort, deadline, model), serves its task, judges uploads as
    // the coordinator does and stores those it accepts while the round is
    // open. Writes no round, model or central ledger row.
    kFollower,
  };

  // Loads job `job_id`, its devices, latest model and ledgers, and marks
  // rounds a crash left open as 'lost' (under BarrierRounds::ResumesOpenRound:
  // resumes the newest with its stored uploads; the first Advance gives it a
  // fresh deadline). `accountant` must outlive the engine.
  // NOT_FOUND for an unknown job; store errors; UNAVAILABLE without entropy.
  static Result<std::unique_ptr<RoundEngine>> Open(
      store::Database& db, int64_t job_id, const RoundAccountant& accountant);

  // The same for a gateway among several (`gateway_id` goes in
  // uploads.gateway). kFollower leaves the open round as it finds it.
  static Result<std::unique_ptr<RoundEngine>> OpenShared(
      store::Database& db, int64_t job_id, const RoundAccountant& accountant,
      Role role, std::string gateway_id);
  // Whether standbys can serve the job's rounds: not when a round's state
  // lives in the coordinator's memory (barrier rounds, per-party ledgers,
  // per-node tasks); such a job's standbys answer 4.04.
  static bool CanFollow(const jobs::JobConfig& config);
  Role role() const { return role_; }

  // Moves the state machine to `now_ms` (kFollower: re-reads the open round
  // from the store, at most every kFollowMs): re-reads the job state (the CLI
  // may stop it), closes a round that is due, opens the next one when the job
  // runs (budget check first; the job becomes 'completed' or
  // 'budget-exhausted' when it must end). Store/DRBG errors, logged: the
  // step is retried by the first call kWriteRetryMs later (calls before
  // that do nothing) and new uploads are refused until it succeeds.
  Status Advance(int64_t now_ms);
  static constexpr int64_t kWriteRetryMs = 1000;
  // How often a follower re-reads the open round and a coordinator reads
  // the uploads its standbys stored (always at the deadline).
  static constexpr int64_t kFollowMs = 100;
  // True while a failed step waits for its retry (uploads get 5.03).
  bool store_failing() const { return write_retry_at_ms_ != 0; }

  // Judges an upload by the device authenticated as `identity` (DTLS PSK
  // identity). An accepted upload is stored with its charges (one fsynced
  // transaction) before this returns, and kept in memory until the round
  // commits; kStoreUnavailable if it cannot be stored or store_failing().
  // If the cohort is complete the round closes at once and the next opens.
  UploadVerdict Submit(std::string_view identity, const Upload& upload,
                       int64_t now_ms);
  // The same, keeping the upload's byte vectors instead of copying them.
  UploadVerdict Submit(std::string_view identity, Upload&& upload,
                       int64_t now_ms);

  // The task for `device_id` (kWait for devices outside the job).
  Task TaskFor(std::string_view device_id) const;

  // True if the open round's cohort includes `device_id` and holds no
  // upload from it yet (JobRouter serves such a job first).
  bool AwaitsUpload(std::string_view device_id) const;

  // True if `device_id` is enrolled in the registry and enabled: every
  // resource asks before it answers (docs/security.md, "Revocation").
  bool DeviceEnabled(std::string_view device_id) const;
  // Another process changed the registry: members of the open round that
  // are now disabled or removed and have not uploaded leave its cohort.
  Status RegistryChanged();

  const jobs::JobRecord& job() const { return job_; }
  bool round_open() const { return open_.has_value; }
  int64_t round_id() const { return open_.round_id; }
  int64_t iteration() const { return iteration_; }
  int64_t deadline_ms() const { return open_.deadline_ms; }
  const ServerModel& model() const { return model_; }
  // The round that released model() (0 before the first release) and its
  // accepted uploads.
  int64_t released_round_id() const { return released_round_id_; }
  int64_t released_participants() const { return released_participants_; }
  double central_epsilon() const { return ledgers_->central_epsilon(); }
  // The conversion behind every ε the engine computes.
  // The conversion of the central ε (job's privacy.accountant).
  privacy::Conversion conversion() const {
    return ledgers_->central_conversion();
  }
  const std::vector<std::string>& devices() const { return devices_; }
  // Device ids of the open round's cohort. Secret: for tests and the fleet
  // simulator's hooks only; the server never sends it.
  std::vector<std::string> CohortForTesting() const;

  // Secure-aggregation jobs (secure_round.cc; docs/aggregator.md,
  // "Secure-aggregation rounds"). The open round's SecAgg+ view (null: none,
  // or the job runs another policy). Such a round never closes at its
  // deadline: the server ends it with one of the two calls below (a stopped
  // job's round is still discarded).
  const SecureRound* open_secure_round() const {
    return secure_.has_value() ? &*secure_ : nullptr;
  }
  // Before the phases can unmask a sum (the masked inputs' phase closes,
  // its survivors fixed): ONE transaction stores the central and local
  // charges of each of `survivors` in the round's cohort (as in a commit),
  // and the round is charged (SecureRound::charged; the store keeps the
  // rows and the charged survivors with the round across a restart).
  // CommitSecureSum and DiscardSecureSum then charge nothing more. A second
  // call (a resumed round closing its masked inputs again) does nothing,
  // or returns FAILED_PRECONDITION when a survivor is not among the
  // charged. FAILED_PRECONDITION for another round than the open secure
  // one, or a round the store no longer holds open; store errors (nothing
  // charged: the caller must not unmask).
  Status ChargeSecureRound(int64_t round_id,
                           const std::vector<std::string>& survivors);
  // The phases gave the decoded sum of `survivors`' updates (identities of
  // the round's cohort): the next model is SumRounds::ApplySum's, and ONE
  // transaction stores the round 'committed' with participants =
  // survivors, the model, the central charge and each survivor's local
  // charge (none when ChargeSecureRound stored them; a survivor it did not
  // charge is then refused); nothing individual is stored. The gateway has
  // seen the sum once the phases unmasked it, so a sum that cannot be
  // committed (fewer survivors than the plan's min_survivors, a survivor
  // disabled or removed during the round, a sum of the wrong length, a
  // model beyond float32) discards the round WITH every survivor's charges
  // and returns ABORTED.
  // FAILED_PRECONDITION for another round than the open secure one and
  // INVALID_ARGUMENT for an identity outside the round's cohort or a
  // repeated one (nothing changed: DiscardSecureSum); store errors (nothing
  // applied, the call may be retried).
  Status CommitSecureSum(int64_t round_id,
                         const std::vector<std::string>& survivors,
                         const std::vector<double>& sum, int64_t now_ms);
  // A sum the phases unmasked but the server cannot hand to CommitSecureSum
  // (it could not decode it, or the survivors were refused): the round is
  // 'discarded' and each of `survivors` that is in the round's cohort is
  // charged as in a commit (an upper bound: a device charged that was not
  // in the sum only over-counts). FAILED_PRECONDITION for another round;
  // store errors.
  Status DiscardSecureSum(int64_t round_id,
                          const std::vector<std::string>& survivors,
                          std::string_view reason, int64_t now_ms);
  // The phases aborted before any sum was unmasked: the round is
  // 'discarded', nothing released or charged. FAILED_PRECONDITION for
  // another round; store errors.
  Status AbortSecureRound(int64_t round_id, std::string_view reason,
                          int64_t now_ms);

  // Scores each new model before its commit: the scores are stored with
  // the model (in the same transaction) and shown on the progress line;
  // with gateway-held data they select the best model and may stop the job
  // early ([validation] early_stop_rounds). Null: none. Must outlive the
  // engine.
  void set_validator(const Validator* validator) { validator_ = validator; }
  // The best validated model so far (selection().has_best() false if none
  // or the job does not select on validation data).
  const ModelSelection& selection() const { return *selection_; }

  // When true, Submit leaves a round whose whole cohort has uploaded open
  // (round_complete()) and the next Advance closes it, deadline or not. The
  // server sets it so that the last device's receipt goes out before the
  // round's commit and fsync instead of after them; a crash in between loses
  // the round exactly as one before the last upload does.
  void set_close_in_advance(bool close_in_advance) {
    close_in_advance_ = close_in_advance;
  }
  // True when every cohort member of the open round has uploaded and the
  // round may close before its deadline. Never under trusted-aggregator: an
  // early close would time-stamp the (secret) cohort's size.
  bool round_complete() const {
    return open_.complete() &&
           job_.config.policy != privacy::Policy::kTrustedAggregator;
  }
  // When round_complete() became true: the time of the Submit that accepted
  // the cohort's last upload (0 if the round was completed from the store).
  int64_t completed_ms() const { return open_.completed_ms; }

  // Shared with the engines of the other jobs the daemon runs at once: each
  // open round reserves its worst-case lifetime charge there, the budget
  // check counts the others' reservations, and once another job has run
  // here the devices' curves of other jobs are re-read from the store at
  // every round open (docs/privacy.md,
  // "Lifetime budget across concurrent jobs"). Null: one job. Must outlive
  // the engine.
  // A round open at the call (resumed or taken over by Open) reserves now.
  void set_lifetime_reservations(LifetimeReservations* reservations) {
    reservations_ = reservations;
    if (role_ != Role::kFollower) ReserveOpenRound();
  }
  ~RoundEngine() { ReleaseOpenRound(); }

  // Called after every closed round (progress line, Observe notification).
  void set_round_listener(std::function<void(const RoundSummary&)> listener) {
    listener_ = std::move(listener);
  }

 private:
  RoundEngine(store::Database& db, int64_t job_id,
              const RoundAccountant& accountant)
      : db_(&db),
        registry_(db),
        store_(db, job_id),
        upload_sums_(db, job_id),
        accountant_(&accountant),
        judge_(job_, device_index_, registry_, store_, upload_sums_) {}

  Status Load(int64_t job_id);
  // One step of Advance.
  Status Step(int64_t now_ms);
  // BarrierRounds::ResumesOpenRound: rebuilds the open round a crash left from
  // the store (Load), then at the first Advance gives it its deadline.
  Status ResumeOpenRound();
  Status StartResumedRound(int64_t now_ms);
  // A barrier round whose cohort lost a node (revoked or at its lifetime
  // budget): discarded, and the job fails with the reason.
  Status FailShortBarrierCohort(int64_t now_ms);
  Status SetState(jobs::JobState state, std::string_view reason = {});
  Status OpenNextRound(int64_t now_ms);
  // Takes revoked members without an accepted upload out of `round`;
  // returns how many left.
  Result<size_t> DropRevokedMembers(OpenRound& round);
  // Reads the job's lifetime budgets (local and central) from the registry
  // into the ledger book (a device's earlier jobs are read once, when its
  // budget first appears).
  Status RefreshLifetimeBudgets();
  Status RefreshLifetimeBudgets(registry::LifetimeLedger ledger);
  // Takes the members whose lifetime budget one more round would exceed, or
  // that reached the algorithm's participation cap, out of a newly sampled
  // `round`; returns how many left.
  size_t DropLifetimeExhaustedMembers(OpenRound& round);
  // The open round's reservation in reservations_ (if set), and its end.
  void ReserveOpenRound();
  void ReleaseOpenRound() {
    if (reservations_ != nullptr) reservations_->Release(job_.id);
  }
  Status CloseRound(int64_t now_ms);
  // secure_round.cc: the plan (after Load), and the open round's seed and
  // cohort order (OpenNextRound).
  Status LoadSecurePlan();
  Status OpenSecureRound(int64_t now_ms);
  // secure_round_resume.cc: Load's loss of the rounds a crash left open
  // (a secure job's newest one is kept for ResumeSecureRound), and the
  // rebuild of that round from the store (LoadSecurePlan).
  Status LoseOpenRounds();
  Status ResumeSecureRound();
  // Indices of `survivors` in the round's cohort; INVALID_ARGUMENT for
  // one outside it or repeated.
  Result<std::vector<size_t>> SurvivorIndices(
      const std::vector<std::string>& survivors) const;
  // The job's indices of `survivors` in the round's cohort, skipping an
  // identity outside it and repeats.
  std::vector<size_t> NamedSurvivors(
      const std::vector<std::string>& survivors) const;
  // Discards the open secure round with `participants`' central and local
  // charges (the gateway saw their sum); none when it was charged before.
  Status DiscardCharged(const std::vector<size_t>& participants,
                        int64_t now_ms);
  // Whether the job's algorithm runs barrier rounds (BarrierRounds).
  bool Barrier() const;
  // Its algorithm's barrier retries (algorithms::BarrierRounds), -1: none.
  int64_t BarrierRetries() const;
  // Closes the round whose whole cohort uploaded and opens the next; logs
  // (does not return) a failure, as an upload cannot be refused for it, and
  // leaves the retry to Advance.
  void CloseCompleteRound(int64_t now_ms);
  Status CommitRound(int64_t now_ms, RoundSummary& summary);
  // The common part of a commit: `commit` (participants, ledger rows and
  // uploads set by the caller) scored, stored in one transaction, then
  // applied to memory (model, ledgers, iteration); nothing changes on
  // failure. Then Committed: the round ends (log, listener).
  Status StoreCommit(RoundCommit& commit, ServerModel& next_model,
                     LedgerCharge& charge, RoundSummary& summary);
  void Committed(const RoundSummary& summary);
  // Discards the open round; `charge` (if not null): the charges of a round
  // whose mechanism ran, and `locals` the device ledgers' (stored with the
  // discard, then applied).
  Status DiscardRound(int64_t now_ms, LedgerCharge* charge = nullptr,
                      std::vector<LocalCharge>* locals = nullptr);
  void LogCommitted(const RoundSummary& summary) const;
  // round_follower.cc. kFollower's Advance: the open round, the model and
  // the ledgers as stored.
  Status Follow(int64_t now_ms);
  Status FollowModel();
  // kCoordinator: the uploads standbys stored for the open round join it
  // (with their local charges, as the standby computed them).
  Status AbsorbStoredUploads(int64_t now_ms);
  // kCoordinator at Load: the open round the previous coordinator left,
  // rebuilt from its stored cohort and every gateway's stored uploads
  // (their local charges are already in the loaded ledgers); at the first
  // Advance it gets a whole deadline. False when there is none to take
  // (no open round, or its cohort is not stored).
  Result<bool> TakeOverOpenRound();
  // The open round `stored` describes (id, cohort), no uploads yet;
  // DATA_LOSS for a cohort member not enrolled in the job.
  Result<OpenRound> StoredRound(const FollowedRound& stored) const;
  // Round opening with the cohort stored (kCoordinator) or without.
  Result<bool> InsertRound(const OpenRound& round, int64_t now_ms);
  // Stores an upload the judge accepted, conditionally on the round being
  // open and holding none of the device's (kCoordinator, kFollower).
  UploadVerdict StoreShared(size_t index, Upload&& upload, LocalCharge&& local,
                            const std::vector<uint8_t>& fingerprint_digest,
                            int64_t now_ms);

  store::Database* db_;
  registry::DeviceRegistry registry_;
  RoundStore store_;
  UploadSums upload_sums_;  // read by judge_; RoundStore::CommitRound adds
  const RoundAccountant* accountant_;
  std::unique_ptr<SamplingRng> cohort_rng_;  // seeded if the job says so
  std::unique_ptr<SamplingRng> noise_rng_;   // kernel entropy, always
  jobs::JobRecord job_;
  std::vector<std::string> devices_;
  std::unordered_map<std::string, size_t> device_index_;
  // Set by Load (it needs the job's config).
  std::optional<LedgerBook> ledgers_;
  // Per-party ledgers (PartyPrivacy::PartyMechanism).
  std::optional<PartyLedger> parties_;
  std::optional<ModelSelection> selection_;  // over job_.config
  // Under secure-aggregation: the job's plan, and the open round's view.
  std::optional<jobs::SecureAggregationPlan> secure_plan_;
  std::optional<SecureRound> secure_;
  UploadJudge judge_;
  ServerModel model_;
  // NodeTasks::PerNodeTasks: the released round's uploads by device index
  // (empty before the first commit), from which each node's task is made.
  std::vector<std::vector<double>> last_uploads_;
  int64_t iteration_ = 0;
  int64_t released_round_id_ = 0;
  int64_t released_participants_ = 0;
  int64_t next_round_id_ = 1;
  OpenRound open_;
  std::function<void(const RoundSummary&)> listener_;
  const Validator* validator_ = nullptr;
  bool close_in_advance_ = false;
  // The algorithm bounds honest uploads: UploadSums are kept (Load).
  bool bounded_uploads_ = false;
  // After a failed step: when Advance retries it (0: no failure pending).
  int64_t write_retry_at_ms_ = 0;
  // BarrierRounds::ResumesOpenRound (set by Load).
  bool resumes_open_round_ = false;
  Role role_ = Role::kSole;
  LifetimeReservations* reservations_ = nullptr;
  std::string gateway_id_;  // uploads.gateway; empty: kSole
  // kFollower: the last read of the store; kCoordinator: of the standbys'
  // uploads.
  int64_t last_follow_ms_ = 0;
};

}  // namespace edgeadmm::rounds
