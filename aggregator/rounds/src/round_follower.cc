// RoundEngine among several gateways on one database (docs/aggregator.md,
// "Several gateways on one database"): the coordinator stores each round
// with its cohort and deadline; a follower (a standby) reads them, serves
// the round's task, judges uploads with the same UploadJudge and stores
// those it accepts, in one transaction with their local charge, only while
// the round is open and once per device; the coordinator takes them into
// the round before it closes it, and alone commits, releases and charges
// the central ledgers.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/rounds/round_engine.h"
#include "edgeadmm/store/blob.h"

namespace edgeadmm::rounds {

bool RoundEngine::CanFollow(const jobs::JobConfig& config) {
  // A secure round lives in the coordinator's SecAggService.
  if (config.policy == privacy::Policy::kSecureAggregation) return false;
  const algorithms::Algorithm& algorithm = algorithms::Get(config.algorithm);
  const algorithms::BarrierRounds* barrier = algorithm.barrier_rounds();
  if (barrier != nullptr && (barrier->BarrierRetries(config) >= 0 ||
                             barrier->ResumesOpenRound(config))) {
    return false;
  }
  const algorithms::PartyPrivacy* party = algorithm.party_privacy();
  double unused = 0;
  if (party != nullptr && party->PartyMechanism(config, 1, unused)) {
    return false;
  }
  const algorithms::NodeTasks* nodes = algorithm.node_tasks();
  return nodes == nullptr || !nodes->PerNodeTasks(config);
}

Result<std::unique_ptr<RoundEngine>> RoundEngine::OpenShared(
    store::Database& db, int64_t job_id, const RoundAccountant& accountant,
    Role role, std::string gateway_id) {
  std::unique_ptr<RoundEngine> engine(new RoundEngine(db, job_id, accountant));
  engine->role_ = role;
  engine->gateway_id_ = std::move(gateway_id);
  EDGEADMM_TRY(engine->Load(job_id));
  EDGEADMM_TRY(engine->LoadSecurePlan());
  if (role != Role::kSole && !CanFollow(engine->job_.config)) {
    return Status::FailedPrecondition();
  }
  return engine;
}

Result<bool> RoundEngine::InsertRound(const OpenRound& round, int64_t now_ms) {
  if (role_ != Role::kCoordinator) {
    return store_.InsertOpenRound(round.round_id,
                                  static_cast<int64_t>(round.cohort_size),
                                  now_ms, round.deadline_ms);
  }
  std::vector<const std::string*> cohort;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (round.in_cohort[i]) cohort.push_back(&devices_[i]);
  }
  return store_.InsertSharedOpenRound(round.round_id, now_ms, round.deadline_ms,
                                      cohort);
}

Status RoundEngine::Follow(int64_t now_ms) {
  if (last_follow_ms_ != 0 && now_ms - last_follow_ms_ < kFollowMs) {
    return Status::Ok();
  }
  last_follow_ms_ = now_ms;
  EDGEADMM_TRY_ASSIGN(job_.state, store_.JobState());
  EDGEADMM_TRY_ASSIGN(std::optional<FollowedRound> round,
                      store_.FollowedOpenRound());
  if (round.has_value() == open_.has_value &&
      (!round.has_value() || round->round_id == open_.round_id)) {
    if (round.has_value()) open_.deadline_ms = round->deadline_ms;
    return Status::Ok();
  }
  // Another round (or none): the round before it ended, so the model and
  // the ledgers may have moved.
  EDGEADMM_TRY(FollowModel());
  open_ = OpenRound();
  if (!round.has_value()) return Status::Ok();
  EDGEADMM_TRY_ASSIGN(OpenRound next, StoredRound(*round));
  next.deadline_ms = round->deadline_ms;
  open_ = std::move(next);
  return Status::Ok();
}

Result<OpenRound> RoundEngine::StoredRound(const FollowedRound& stored) const {
  OpenRound round;
  round.has_value = true;
  round.round_id = stored.round_id;
  round.in_cohort.assign(devices_.size(), false);
  for (const std::string& id : stored.cohort) {
    auto it = device_index_.find(id);
    if (it == device_index_.end()) return Status::DataLoss();
    round.in_cohort[it->second] = true;
    ++round.cohort_size;
  }
  return round;
}

Status RoundEngine::FollowModel() {
  EDGEADMM_TRY_ASSIGN(StoredModel stored, store_.LatestModel());
  iteration_ = stored.iteration;
  released_round_id_ = stored.round_id;
  released_participants_ = stored.participants;
  model_ = std::move(stored.model);
  // The local curves the next uploads extend are the newest stored ones,
  // whichever gateway wrote them.
  ledgers_.emplace(*accountant_, job_.config, devices_);
  return ledgers_->Load(store_, device_index_);
}

Status RoundEngine::AbsorbStoredUploads(int64_t now_ms) {
  if (now_ms < open_.deadline_ms && now_ms - last_follow_ms_ < kFollowMs) {
    return Status::Ok();
  }
  last_follow_ms_ = now_ms;
  EDGEADMM_TRY_ASSIGN(const int64_t stored,
                      store_.StoredUploadCount(open_.round_id));
  if (stored == static_cast<int64_t>(open_.accepted.size())) {
    return Status::Ok();
  }
  const size_t length =
      static_cast<size_t>(UploadLength(job_.config, iteration_));
  return store_.ForEachUploadFromOthers(
      open_.round_id, gateway_id_, [&](StoredUpload row) -> Status {
        auto it = device_index_.find(row.device_id);
        if (it == device_index_.end()) return Status::DataLoss();
        if (open_.accepted.count(it->second) != 0) return Status::Ok();
        EDGEADMM_TRY_ASSIGN(std::vector<double> values,
                            store::DecodeFloats(row.payload));
        if (values.size() != length) return Status::DataLoss();
        // The standby stored this very curve with the upload.
        ledgers_->ApplyLocal(ledgers_->PlanLocal(it->second));
        open_.accepted.emplace(
            it->second, OpenRound::Accepted{std::move(row.payload),
                                            std::move(row.fingerprint_digest)});
        return Status::Ok();
      });
}

Result<bool> RoundEngine::TakeOverOpenRound() {
  EDGEADMM_TRY_ASSIGN(std::optional<FollowedRound> stored,
                      store_.FollowedOpenRound());
  if (!stored.has_value() || stored->cohort.empty()) return false;
  EDGEADMM_TRY_ASSIGN(OpenRound round, StoredRound(*stored));
  round.awaiting_restart_deadline = true;
  const size_t length =
      static_cast<size_t>(UploadLength(job_.config, iteration_));
  // Gateway "": every gateway's uploads, the previous coordinator's too.
  EDGEADMM_TRY(store_.ForEachUploadFromOthers(
      round.round_id, "", [&](StoredUpload row) -> Status {
        auto it = device_index_.find(row.device_id);
        if (it == device_index_.end() || !round.in_cohort[it->second]) {
          return Status::DataLoss();
        }
        EDGEADMM_TRY_ASSIGN(std::vector<double> values,
                            store::DecodeFloats(row.payload));
        if (values.size() != length) return Status::DataLoss();
        round.accepted.emplace(
            it->second, OpenRound::Accepted{std::move(row.payload),
                                            std::move(row.fingerprint_digest)});
        return Status::Ok();
      }));
  EDGEADMM_LOG_INFO(
      "job %s round %lld: taken over from the previous coordinator with %zu "
      "of its %zu cohort uploads from the store",
      job_.config.name.c_str(), static_cast<long long>(round.round_id),
      round.accepted.size(), round.cohort_size);
  open_ = std::move(round);
  return true;
}

UploadVerdict RoundEngine::StoreShared(
    size_t index, Upload&& upload, LocalCharge&& local,
    const std::vector<uint8_t>& fingerprint_digest, int64_t now_ms) {
  std::vector<uint8_t> stored_fingerprint;
  const Result<SharedInsert> outcome = store_.InsertSharedUpload(
      open_.round_id, ledgers_->LocalRow(local),
      {&devices_[index], &upload.vector, &upload.extra, &fingerprint_digest,
       &gateway_id_},
      &stored_fingerprint);
  if (!outcome.ok()) {
    EDGEADMM_LOG_ERROR(
        "job %s round %lld: upload of %s not stored (%s: %s); answered 5.03",
        job_.config.name.c_str(), static_cast<long long>(open_.round_id),
        devices_[index].c_str(), outcome.status().str(),
        db_->LastError().c_str());
    return UploadVerdict::kStoreUnavailable;
  }
  switch (*outcome) {
    case SharedInsert::kRoundClosed:
      // The coordinator closed it since this gateway last looked: judged
      // as for any round that is not open.
      return judge_.CommittedUploadVerdict(upload);
    case SharedInsert::kExists:
      // Stored by another gateway (or before a restart): the same receipt
      // for the same bytes.
      return stored_fingerprint == fingerprint_digest
                 ? UploadVerdict::kDuplicate
                 : UploadVerdict::kConflictingDuplicate;
    case SharedInsert::kInserted:
      break;
  }
  ledgers_->ApplyLocal(std::move(local));
  open_.accepted.emplace(
      index, OpenRound::Accepted{std::move(upload.vector), fingerprint_digest});
  if (role_ == Role::kCoordinator && round_complete() && !close_in_advance_) {
    CloseCompleteRound(now_ms);
  }
  return UploadVerdict::kAccepted;
}

}  // namespace edgeadmm::rounds
