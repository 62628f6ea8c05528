#include "edgeadmm/rounds/round_engine.h"

#include <optional>
#include <utility>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/privacy/ledger_meaning.h"
#include "edgeadmm/rounds/cohort_sampler.h"
#include "edgeadmm/rounds/upload_digest.h"
#include "edgeadmm/store/blob.h"

namespace edgeadmm::rounds {

Result<std::unique_ptr<RoundEngine>> RoundEngine::Open(
    store::Database& db, int64_t job_id, const RoundAccountant& accountant) {
  std::unique_ptr<RoundEngine> engine(new RoundEngine(db, job_id, accountant));
  EDGEADMM_TRY(engine->Load(job_id));
  EDGEADMM_TRY(engine->LoadSecurePlan());
  return engine;
}

Status RoundEngine::Load(int64_t job_id) {
  EDGEADMM_TRY_ASSIGN(job_, jobs::LoadJob(*db_, job_id));
  EDGEADMM_TRY_ASSIGN(devices_, jobs::JobDevices(*db_, job_id));
  for (size_t i = 0; i < devices_.size(); ++i) device_index_[devices_[i]] = i;
  // Two generators: the cohort's may be seeded (reference runs); the
  // server's noise always comes from the kernel, so no seed and no restart
  // can replay it (docs/privacy.md, "trusted-aggregator").
  EDGEADMM_TRY_ASSIGN(cohort_rng_,
                      SamplingRng::Create(job_.config.sampling_seed));
  EDGEADMM_TRY_ASSIGN(noise_rng_, SamplingRng::Create(0));
  const algorithms::BarrierRounds* barrier =
      algorithms::Get(job_.config.algorithm).barrier_rounds();
  resumes_open_round_ =
      barrier != nullptr && barrier->ResumesOpenRound(job_.config);
  // A round still 'open' was in flight when the process died: lost, or
  // resumed below from the store (a follower's is the coordinator's; a
  // coordinator's successor takes it over, TakeOverOpenRound).
  const bool follower = role_ == Role::kFollower;
  if (!resumes_open_round_ && role_ == Role::kSole) {
    EDGEADMM_TRY(LoseOpenRounds());
  }
  EDGEADMM_TRY_ASSIGN(StoredModel stored, store_.LatestModel());
  iteration_ = stored.iteration;
  released_round_id_ = stored.round_id;
  released_participants_ = stored.participants;
  model_ = std::move(stored.model);
  const algorithms::NodeTasks* node_tasks =
      algorithms::Get(job_.config.algorithm).node_tasks();
  if (node_tasks != nullptr && node_tasks->PerNodeTasks(job_.config)) {
    last_uploads_.assign(devices_.size(), {});
    if (iteration_ > 0) {
      EDGEADMM_TRY(store_.ForEachCommittedUpload(
          released_round_id_,
          [this](const std::string& id, std::vector<double> values) {
            auto it = device_index_.find(id);
            if (it != device_index_.end()) {
              last_uploads_[it->second] = std::move(values);
            }
          }));
    }
  }
  EDGEADMM_TRY_ASSIGN(next_round_id_, store_.NextRoundId());
  bounded_uploads_ = algorithms::Get(job_.config.algorithm)
                         .HonestUpload(job_.config)
                         .bounded();
  if (bounded_uploads_ && !follower) {
    EDGEADMM_TRY(upload_sums_.RebuildIfMissing());
  }
  if (resumes_open_round_ && !follower) EDGEADMM_TRY(ResumeOpenRound());
  ledgers_.emplace(*accountant_, job_.config, devices_);
  EDGEADMM_TRY(ledgers_->Load(store_, device_index_));
  if (!resumes_open_round_ && role_ == Role::kCoordinator) {
    EDGEADMM_TRY_ASSIGN(const bool taken, TakeOverOpenRound());
    if (!taken) EDGEADMM_TRY(store_.MarkOpenRoundsLost());
  }
  const algorithms::Algorithm& algorithm =
      algorithms::Get(job_.config.algorithm);
  const algorithms::PartyPrivacy* party = algorithm.party_privacy();
  double unused = 0;
  if (party != nullptr && party->PartyMechanism(job_.config, 1, unused)) {
    parties_.emplace(devices_, party->PartyDelta(job_.config));
    EDGEADMM_TRY(parties_->Load(store_, device_index_));
  }
  // The best validated model survives restarts: its scores are in the store.
  selection_.emplace(job_.config);
  if (selection_->enabled()) {
    EDGEADMM_TRY(store_.ForEachValidatedModel(
        [this](const ScoredModel& m) { selection_->Observe(m); }));
  }
  // What the ε in the round lines mean (docs/privacy.md).
  struct Described {
    const char* which;
    privacy::LedgerMeaning meaning;
    privacy::Conversion conversion;
  };
  for (const Described& d :
       {Described{
            "central",
            algorithms::Get(job_.config.algorithm).CentralMeaning(job_.config),
            ledgers_->central_conversion()},
        Described{"local", privacy::LocalLedgerMeaning(job_.config.policy),
                  accountant_->conversion()}}) {
    EDGEADMM_LOG_INFO(
        "job %s: %s epsilon = %s, %s neighbours, %s conversion, delta %.3g; "
        "against %s",
        job_.config.name.c_str(), d.which, d.meaning.mechanism.c_str(),
        d.meaning.neighbouring.c_str(), privacy::ConversionName(d.conversion),
        job_.config.delta, d.meaning.observer.c_str());
  }
  if (parties_.has_value()) {
    EDGEADMM_LOG_INFO(
        "job %s: the job's privacy is per party (ledger scopes party:<id>, "
        "charged per accepted upload, improved conversion on the device "
        "ledger's orders, delta %.3g; mechanism, neighbours and observer in "
        "`edgeadmm job ledger`); the central and local epsilon above are "
        "the generic ledgers'",
        job_.config.name.c_str(), party->PartyDelta(job_.config));
  }
  return Status::Ok();
}

Status RoundEngine::FailShortBarrierCohort(int64_t now_ms) {
  // A barrier needs every node; a revoked node or one at its lifetime
  // budget never comes back within this job.
  const size_t missing = devices_.size() - open_.cohort_size;
  EDGEADMM_TRY(DiscardRound(now_ms));
  return SetState(jobs::JobState::kFailed,
                  "barrier: " + std::to_string(missing) + " of " +
                      std::to_string(devices_.size()) +
                      " nodes revoked or at their lifetime budget; " +
                      algorithms::NameOf(job_.config.algorithm) +
                      " needs every node every round");
}

Status RoundEngine::SetState(jobs::JobState state, std::string_view reason) {
  EDGEADMM_TRY(jobs::SetJobState(*db_, job_.id, state, reason));
  job_.state = state;
  job_.end_reason = std::string(reason);
  EDGEADMM_LOG_INFO("job %s: %s%s%.*s", job_.config.name.c_str(),
                    jobs::JobStateName(state), reason.empty() ? "" : " (",
                    static_cast<int>(reason.size()), reason.data());
  return Status::Ok();
}

Status RoundEngine::Advance(int64_t now_ms) {
  // A failed write (full disk, read-only file system, failed fsync) is
  // retried in place, at most once a second (the server ticks every 10 ms);
  // new uploads are refused meanwhile (docs/security.md, "Durable receipts
  // and write failures").
  if (now_ms < write_retry_at_ms_) return Status::Ok();
  const Status status = Step(now_ms);
  if (!status.ok()) {
    EDGEADMM_LOG_ERROR(
        "job %s: store write failed (%s: %s); new uploads get 5.03, retry in "
        "%lld ms",
        job_.config.name.c_str(), status.str(), db_->LastError().c_str(),
        static_cast<long long>(kWriteRetryMs));
  } else if (write_retry_at_ms_ != 0) {
    EDGEADMM_LOG_INFO("job %s: store writable again", job_.config.name.c_str());
  }
  write_retry_at_ms_ = status.ok() ? 0 : now_ms + kWriteRetryMs;
  return status;
}

Status RoundEngine::Step(int64_t now_ms) {
  if (role_ == Role::kFollower) return Follow(now_ms);
  EDGEADMM_TRY_ASSIGN(job_.state, store_.JobState());
  if (role_ == Role::kCoordinator && open_.has_value &&
      job_.state == jobs::JobState::kRunning) {
    EDGEADMM_TRY(AbsorbStoredUploads(now_ms));
  }
  if (open_.has_value && open_.awaiting_restart_deadline &&
      job_.state == jobs::JobState::kRunning) {
    EDGEADMM_TRY(StartResumedRound(now_ms));
  }
  if (open_.has_value) {
    if (job_.state != jobs::JobState::kRunning) {
      EDGEADMM_TRY(DiscardRound(now_ms));
    } else if (!secure_.has_value() &&  // the server ends a secure round
               (now_ms >= open_.deadline_ms || round_complete())) {
      EDGEADMM_TRY(CloseRound(now_ms));
    }
  }
  if (!open_.has_value && job_.state == jobs::JobState::kRunning) {
    EDGEADMM_TRY(OpenNextRound(now_ms));
  }
  return Status::Ok();
}

Status RoundEngine::OpenNextRound(int64_t now_ms) {
  if (iteration_ >= job_.config.rounds) {
    return SetState(jobs::JobState::kCompleted, "ran all job.rounds");
  }
  if (std::string reason; !ledgers_->WithinBudget(&reason)) {
    return SetState(jobs::JobState::kBudgetExhausted,
                    "one more round could exceed a privacy budget: " + reason);
  }
  const algorithms::BarrierRounds* barrier =
      algorithms::Get(job_.config.algorithm).barrier_rounds();
  const int64_t required =
      barrier != nullptr ? barrier->RequiredDevices(job_.config) : 0;
  if (required > 0 && static_cast<int64_t>(devices_.size()) != required) {
    return SetState(jobs::JobState::kFailed,
                    std::to_string(devices_.size()) +
                        " devices enrolled, the job needs exactly " +
                        std::to_string(required) +
                        " (its node or party count)");
  }
  EDGEADMM_TRY_ASSIGN(const std::vector<size_t> cohort,
                      SampleCohort(job_.config, devices_.size(), *cohort_rng_));
  OpenRound round;
  round.has_value = true;
  round.round_id = next_round_id_;
  round.deadline_ms =
      now_ms + static_cast<int64_t>(job_.config.deadline_seconds * 1000);
  round.in_cohort.assign(devices_.size(), false);
  for (size_t i : cohort) round.in_cohort[i] = true;
  round.cohort_size = cohort.size();
  // Sampled among all enrolled devices (each keeps its inclusion
  // probability, which the accounting uses), then revoked ones, those at
  // their lifetime budget and those at the algorithm's participation cap
  // leave (none of it depends on any device's data).
  EDGEADMM_TRY(DropRevokedMembers(round));
  EDGEADMM_TRY(RefreshLifetimeBudgets());
  DropLifetimeExhaustedMembers(round);
  EDGEADMM_TRY_ASSIGN(const bool opened, InsertRound(round, now_ms));
  if (!opened) {
    // The operator stopped the job since Step read its state: no round.
    EDGEADMM_TRY_ASSIGN(job_.state, store_.JobState());
    return Status::Ok();
  }
  ++next_round_id_;
  open_ = std::move(round);
  ReserveOpenRound();
  if (Barrier() && open_.cohort_size != devices_.size()) {
    return FailShortBarrierCohort(now_ms);
  }
  // A cohort below m_min can never commit: discard it now.
  if (open_.cohort_size < static_cast<size_t>(job_.config.m_min)) {
    return DiscardRound(now_ms);
  }
  return secure_plan_.has_value() ? OpenSecureRound(now_ms) : Status::Ok();
}

bool RoundEngine::Barrier() const { return BarrierRetries() >= 0; }

int64_t RoundEngine::BarrierRetries() const {
  const algorithms::BarrierRounds* barrier =
      algorithms::Get(job_.config.algorithm).barrier_rounds();
  return barrier != nullptr ? barrier->BarrierRetries(job_.config) : -1;
}

Status RoundEngine::CloseRound(int64_t now_ms) {
  if (Barrier() && !open_.complete()) {
    // docs/aggregator.md, "Barrier rounds": the same round again with the
    // uploads it has, or the job fails; never a partial commit.
    const int64_t retries = BarrierRetries();
    const size_t missing = open_.cohort_size - open_.accepted.size();
    if (open_.retries < retries) {
      if (resumes_open_round_) {
        EDGEADMM_TRY(store_.SetRetries(open_.round_id, open_.retries + 1));
      }
      ++open_.retries;
      open_.deadline_ms =
          now_ms + static_cast<int64_t>(job_.config.deadline_seconds * 1000);
      EDGEADMM_LOG_WARN(
          "job %s round %lld: %zu of %zu nodes missed the deadline; retry "
          "%lld of %lld (barrier: uploads kept)",
          job_.config.name.c_str(), static_cast<long long>(open_.round_id),
          missing, open_.cohort_size, static_cast<long long>(open_.retries),
          static_cast<long long>(retries));
      return Status::Ok();
    }
    const int64_t round_id = open_.round_id;
    const size_t cohort = open_.cohort_size;
    EDGEADMM_TRY(DiscardRound(now_ms));
    return SetState(jobs::JobState::kFailed,
                    "barrier: round " + std::to_string(round_id) + " missed " +
                        std::to_string(missing) + " of " +
                        std::to_string(cohort) + " nodes after " +
                        std::to_string(retries + 1) + " deadlines");
  }
  if (open_.accepted.size() < static_cast<size_t>(job_.config.m_min)) {
    return DiscardRound(now_ms);
  }
  RoundSummary summary;
  const Status status = CommitRound(now_ms, summary);
  if (status == Status::OutOfRange()) {
    // The next model does not fit float32: nothing is stored or released,
    // the round is discarded and the job goes on (docs/security.md). The
    // round's mechanism ran and the discard (a gap in the released round
    // ids) is a function of its noisy result: the round is charged, so the
    // gap is post-processing (docs/privacy.md, "Side channels").
    EDGEADMM_LOG_ERROR(
        "job %s round %lld: the next model leaves float32's range; round "
        "discarded, its privacy charge kept",
        job_.config.name.c_str(), static_cast<long long>(open_.round_id));
    std::vector<size_t> participants;
    for (const auto& accepted : open_.accepted) {
      participants.push_back(accepted.first);
    }
    LedgerCharge charge = ledgers_->Plan(participants);
    return DiscardRound(now_ms, &charge);
  }
  // A failed write leaves the round open, in memory as in the store, with
  // nothing applied: the next Advance retries its commit.
  EDGEADMM_TRY(status);
  Committed(summary);
  return Status::Ok();
}

void RoundEngine::Committed(const RoundSummary& summary) {
  open_ = OpenRound();
  secure_.reset();
  ReleaseOpenRound();
  LogCommitted(summary);
  if (listener_) listener_(summary);
  if (iteration_ >= job_.config.rounds || summary.early_stop) {
    job_.state = jobs::JobState::kCompleted;
    EDGEADMM_LOG_INFO("job %s: completed (%s)", job_.config.name.c_str(),
                      job_.end_reason.c_str());
  }
}

void RoundEngine::LogCommitted(const RoundSummary& summary) const {
  EDGEADMM_LOG_INFO(
      "job %s round %lld: committed iteration %lld/%lld, %zu/%zu uploads, "
      "central epsilon %.6g (%s, delta %.3g)%s",
      job_.config.name.c_str(), static_cast<long long>(summary.round_id),
      static_cast<long long>(summary.iteration),
      static_cast<long long>(job_.config.rounds), summary.participants,
      summary.cohort_size, summary.central_epsilon,
      privacy::ConversionName(conversion()), job_.config.delta,
      ValidationSuffix(summary).c_str());
}

Status RoundEngine::CommitRound(int64_t now_ms, RoundSummary& summary) {
  const size_t m = open_.accepted.size();
  std::vector<std::vector<double>> uploads;
  std::vector<size_t> participants;
  uploads.reserve(m);
  participants.reserve(m);
  // Decoded only now: the round keeps each upload's float32 bytes.
  for (const auto& [index, upload] : open_.accepted) {
    Result<std::vector<double>> values = store::DecodeFloats(upload.payload);
    if (!values.ok()) return values.status();  // the judge decoded them
    uploads.push_back(std::move(values).value());
    participants.push_back(index);
  }
  ServerModel next_model = model_;
  // OUT_OF_RANGE only from here: CloseRound discards the round on it.
  const Status applied =
      ApplyRound(job_.config, job_.n, uploads, *noise_rng_, next_model);
  if (!applied.ok()) return applied;
  LedgerCharge charge = ledgers_->Plan(participants);

  RoundCommit commit;
  commit.closed_at_ms = now_ms;
  commit.participants = static_cast<int64_t>(m);
  commit.ledger = ledgers_->Rows(charge);
  for (size_t k = 0; bounded_uploads_ && k < m; ++k) {
    commit.summed_uploads.emplace_back(&devices_[participants[k]], &uploads[k]);
  }
  const Status stored = StoreCommit(commit, next_model, charge, summary);
  if (!stored.ok()) return stored;
  if (!last_uploads_.empty()) {
    for (size_t k = 0; k < m; ++k) {
      last_uploads_[participants[k]] = std::move(uploads[k]);
    }
  }
  return Status::Ok();
}

Status RoundEngine::StoreCommit(RoundCommit& commit, ServerModel& next_model,
                                LedgerCharge& charge, RoundSummary& summary) {
  commit.round_id = open_.round_id;
  commit.iteration = iteration_ + 1;
  commit.central = charge.central;
  commit.model = &next_model;
  // Scored before the commit, so that the scores (and an early stop) are
  // stored with the model in the same transaction.
  ScoredModel scored{commit.iteration, commit.round_id, {}};
  if (validator_ != nullptr) {
    scored.metrics = validator_->Evaluate(next_model.z);
    commit.metrics = &scored.metrics;
    summary.validated = true;
    summary.metrics = scored.metrics;
    summary.best =
        selection_->enabled() && selection_->Improves(scored.metrics);
  }
  ModelSelection selection = *selection_;
  if (summary.validated && selection.enabled()) selection.Observe(scored);
  if (commit.iteration >= job_.config.rounds) {
    commit.completes_job = true;
    commit.end_reason = "ran all job.rounds";
  } else if (summary.validated && selection.ShouldStop(commit.iteration)) {
    // Only a scored model can end the job: without scores (the validation
    // file did not load) nothing is compared.
    commit.completes_job = true;
    commit.end_reason = selection.StopReason(commit.iteration);
    summary.early_stop = true;
  }
  EDGEADMM_TRY(store_.CommitRound(commit));

  // Committed: only now does memory follow the store.
  model_ = std::move(next_model);
  *selection_ = selection;
  if (commit.completes_job) job_.end_reason = commit.end_reason;
  summary.central_epsilon = charge.central_epsilon;
  ledgers_->Apply(std::move(charge));
  iteration_ = commit.iteration;
  released_round_id_ = open_.round_id;
  released_participants_ = commit.participants;
  summary.round_id = open_.round_id;
  summary.iteration = iteration_;
  summary.committed = true;
  summary.cohort_size = open_.cohort_size;
  summary.participants = static_cast<size_t>(commit.participants);
  return Status::Ok();
}

Status RoundEngine::DiscardRound(int64_t now_ms, LedgerCharge* charge,
                                 std::vector<LocalCharge>* locals) {
  RoundSummary summary;
  summary.round_id = open_.round_id;
  summary.iteration = iteration_;
  summary.cohort_size = open_.cohort_size;
  summary.participants = open_.accepted.size();
  summary.central_epsilon = ledgers_->central_epsilon();
  std::vector<LedgerRowRef> rows;
  if (charge != nullptr) rows = ledgers_->Rows(*charge);
  for (size_t i = 0; locals != nullptr && i < locals->size(); ++i) {
    rows.push_back(ledgers_->LocalRow((*locals)[i]));
  }
  // On failure the round stays open and the next Advance retries.
  EDGEADMM_TRY(store_.DiscardRound(summary.round_id,
                                   static_cast<int64_t>(summary.participants),
                                   now_ms, rows));
  if (charge != nullptr) {
    summary.central_epsilon = charge->central_epsilon;
    ledgers_->Apply(std::move(*charge));
  }
  for (size_t i = 0; locals != nullptr && i < locals->size(); ++i) {
    ledgers_->ApplyLocal(std::move((*locals)[i]));
  }
  open_ = OpenRound();
  secure_.reset();
  ReleaseOpenRound();
  EDGEADMM_LOG_INFO(
      "job %s round %lld: discarded (%zu/%zu uploads, m_min %lld), nothing "
      "released",
      job_.config.name.c_str(), static_cast<long long>(summary.round_id),
      summary.participants, summary.cohort_size,
      static_cast<long long>(job_.config.m_min));
  if (listener_) listener_(summary);
  return Status::Ok();
}

void RoundEngine::CloseCompleteRound(int64_t now_ms) {
  // Everyone answered: no reason to wait for the deadline, and the next
  // round opens at once. A failed write leaves the round open (complete):
  // Advance retries it, as after its own failures.
  const int64_t round_id = open_.round_id;
  Status status = CloseRound(now_ms);
  if (status.ok() && !open_.has_value &&
      job_.state == jobs::JobState::kRunning) {
    status = OpenNextRound(now_ms);
  }
  if (!status.ok()) {
    EDGEADMM_LOG_ERROR(
        "job %s: closing round %lld failed (%s: %s); new uploads get 5.03, "
        "retry in %lld ms",
        job_.config.name.c_str(), static_cast<long long>(round_id),
        status.str(), db_->LastError().c_str(),
        static_cast<long long>(kWriteRetryMs));
    write_retry_at_ms_ = now_ms + kWriteRetryMs;
  }
}

UploadVerdict RoundEngine::Submit(std::string_view identity,
                                  const Upload& upload, int64_t now_ms) {
  return Submit(identity, Upload(upload), now_ms);
}

UploadVerdict RoundEngine::Submit(std::string_view identity, Upload&& upload,
                                  int64_t now_ms) {
  if (secure_plan_.has_value()) return UploadVerdict::kSecureAggregationOnly;
  size_t index = 0;
  const UploadVerdict verdict =
      judge_.Judge(identity, upload, open_, iteration_, &index);
  if (verdict != UploadVerdict::kAccepted) return verdict;
  // A write the engine must retry is pending: no new receipt meanwhile.
  if (write_retry_at_ms_ != 0) return UploadVerdict::kStoreUnavailable;
  // The aggregator has seen the upload: its local charge is stored now,
  // whatever becomes of the round (docs/privacy.md, "local-dp"). If it
  // cannot be stored the upload is refused (the device may retry).
  LocalCharge local = ledgers_->PlanLocal(index);
  // The per-party ledger (PartyPrivacy): the upload's release, with what
  // the device reported, stored now for the same reason.
  double party_nu = 0;
  std::optional<PartyCharge> party;
  if (parties_.has_value() &&
      algorithms::Get(job_.config.algorithm)
          .party_privacy()
          ->PartyMechanism(job_.config, iteration_ + 1, party_nu)) {
    party = parties_->Plan(index, party_nu);
  }
  // The algorithm's own bytes, kept only from the rounds its unit stores
  // them in (a value sent in another round is not recorded).
  const algorithms::UploadExtra* extra_unit =
      algorithms::Get(job_.config.algorithm).upload_extra();
  if (extra_unit == nullptr || !extra_unit->Stores(job_.config, iteration_)) {
    upload.extra.clear();
  }
  // The upload with its charges, in one transaction on disk before the
  // receipt, for every algorithm: the device drops its upload after the
  // receipt, and no charge is ever missing or written twice. Under
  // BarrierRounds::ResumesOpenRound a restart resumes the round with it.
  const std::vector<uint8_t> fingerprint_digest =
      UploadDigest(upload.fingerprint_or_vector());
  if (role_ != Role::kSole) {  // CanFollow: no per-party ledger
    return StoreShared(index, std::move(upload), std::move(local),
                       fingerprint_digest, now_ms);
  }
  std::optional<LedgerRowRef> party_row;
  if (party.has_value()) party_row = parties_->Row(*party, &upload.ledger);
  const Status stored = store_.InsertAcceptedUpload(
      open_.round_id, ledgers_->LocalRow(local),
      party_row.has_value() ? &*party_row : nullptr,
      {&devices_[index], &upload.vector, &upload.extra, &fingerprint_digest});
  if (!stored.ok()) {
    EDGEADMM_LOG_ERROR(
        "job %s round %lld: upload of %s not stored (%s: %s); "
        "answered 5.03",
        job_.config.name.c_str(), static_cast<long long>(open_.round_id),
        devices_[index].c_str(), stored.str(), db_->LastError().c_str());
    return UploadVerdict::kStoreUnavailable;
  }
  ledgers_->ApplyLocal(std::move(local));
  if (party.has_value()) parties_->Apply(std::move(*party));
  // Moves only the byte vector: `identity` may view upload.device_id.
  open_.accepted.emplace(
      index, OpenRound::Accepted{std::move(upload.vector), fingerprint_digest});
  if (open_.complete()) open_.completed_ms = now_ms;
  if (round_complete() && !close_in_advance_) CloseCompleteRound(now_ms);
  return verdict;
}

Task RoundEngine::TaskFor(std::string_view device_id) const {
  Task task;
  task.job_id = job_.id;
  task.iteration = iteration_;
  task.z = model_.z;
  if (job_.state != jobs::JobState::kRunning) {
    task.kind = Task::Kind::kFinished;
    return task;
  }
  if (!open_.has_value) return task;
  task.round_id = open_.round_id;
  task.deadline_ms = open_.deadline_ms;
  auto it = device_index_.find(std::string(device_id));
  if (it != device_index_.end()) task.node = static_cast<int64_t>(it->second);
  if (it != device_index_.end() && open_.in_cohort[it->second] &&
      open_.accepted.count(it->second) == 0) {
    task.kind = Task::Kind::kTrain;
    if (secure_.has_value()) {
      task.secure = true;
      task.ddg = secure_->plan.round;
      task.rotation_seed = secure_->rotation_seed;
    }
    if (!last_uploads_.empty()) {
      algorithms::Get(job_.config.algorithm)
          .node_tasks()
          ->NodeTaskVector(job_.config, task.node, last_uploads_, task.z);
    }
  }
  return task;
}

std::vector<std::string> RoundEngine::CohortForTesting() const {
  std::vector<std::string> ids;
  if (!open_.has_value) return ids;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (open_.in_cohort[i]) ids.push_back(devices_[i]);
  }
  return ids;
}

}  // namespace edgeadmm::rounds
