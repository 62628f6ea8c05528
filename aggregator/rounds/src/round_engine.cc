#include "edgeadmm/rounds/round_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "edgeadmm/algorithms/registry.h"
#include "edgeadmm/log.h"
#include "edgeadmm/rounds/cohort_sampler.h"
#include "edgeadmm/rounds/upload_digest.h"
#include "edgeadmm/store/blob.h"
#include "edgeadmm/store/transaction.h"

namespace edgeadmm::rounds {
namespace {

constexpr char kCentralScope[] = "central";
constexpr char kDeviceCentralPrefix[] = "central:";
constexpr char kDeviceLocalPrefix[] = "local:";

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

Result<std::unique_ptr<RoundEngine>> RoundEngine::Open(
    store::Database& db, int64_t job_id, const RoundAccountant& accountant) {
  std::unique_ptr<RoundEngine> engine(new RoundEngine(db, accountant));
  EDGEADMM_TRY(engine->Load(job_id));
  return engine;
}

Status RoundEngine::Load(int64_t job_id) {
  EDGEADMM_TRY_ASSIGN(job_, jobs::LoadJob(*db_, job_id));
  EDGEADMM_TRY_ASSIGN(devices_, jobs::JobDevices(*db_, job_id));
  for (size_t i = 0; i < devices_.size(); ++i) device_index_[devices_[i]] = i;
  EDGEADMM_TRY_ASSIGN(rng_, SamplingRng::Create(job_.config.sampling_seed));

  // A round still 'open' was in flight when the process died: it is lost.
  EDGEADMM_TRY_ASSIGN(
      store::Statement lost,
      db_->Prepare("UPDATE rounds SET state = 'lost' WHERE job_id = ? AND "
                   "state = 'open'"));
  lost.Bind(1, job_id);
  EDGEADMM_TRY(lost.Run());

  EDGEADMM_TRY_ASSIGN(
      store::Statement model,
      db_->Prepare("SELECT m.iteration, m.z, m.server_state, m.round_id, "
                   "coalesce(r.participants, 0) FROM models m LEFT JOIN "
                   "rounds r USING (job_id, round_id) WHERE m.job_id = ? "
                   "ORDER BY m.iteration DESC LIMIT 1"));
  model.Bind(1, job_id);
  EDGEADMM_TRY(model.StepRow());
  iteration_ = model.ColumnInt(0);
  released_round_id_ = model.ColumnInt(3);
  released_participants_ = model.ColumnInt(4);
  EDGEADMM_TRY_ASSIGN(model_.z, store::DecodeDoubles(model.ColumnBlob(1)));
  EDGEADMM_TRY_ASSIGN(model_.state, store::DecodeDoubles(model.ColumnBlob(2)));

  EDGEADMM_TRY_ASSIGN(
      store::Statement next,
      db_->Prepare("SELECT coalesce(max(round_id), 0) + 1 FROM rounds WHERE "
                   "job_id = ?"));
  next.Bind(1, job_id);
  EDGEADMM_TRY(next.StepRow());
  next_round_id_ = next.ColumnInt(0);
  return LoadLedgers();
}

Status RoundEngine::LoadLedgers() {
  const std::vector<double> zero(accountant_->order_count(), 0.0);
  ledgers_.central = zero;
  ledgers_.device_central.assign(devices_.size(), zero);
  ledgers_.device_local.assign(devices_.size(), zero);
  ledgers_.charged.assign(devices_.size(), false);
  EDGEADMM_TRY_ASSIGN(
      store::Statement stmt,
      db_->Prepare("SELECT scope, rdp FROM ledger WHERE job_id = ?1 AND "
                   "(scope, round_id) IN (SELECT scope, max(round_id) FROM "
                   "ledger WHERE job_id = ?1 GROUP BY scope)"));
  stmt.Bind(1, job_.id);
  for (;;) {
    EDGEADMM_TRY_ASSIGN(const bool row, stmt.Step());
    if (!row) break;
    const std::string scope = stmt.ColumnText(0);
    EDGEADMM_TRY_ASSIGN(std::vector<double> rdp,
                        store::DecodeDoubles(stmt.ColumnBlob(1)));
    if (rdp.size() != zero.size()) return Status::DataLoss();
    if (scope == kCentralScope) {
      ledgers_.central = std::move(rdp);
      continue;
    }
    const bool local = StartsWith(scope, kDeviceLocalPrefix);
    const size_t prefix = local ? sizeof(kDeviceLocalPrefix) - 1
                                : sizeof(kDeviceCentralPrefix) - 1;
    auto it = device_index_.find(scope.substr(prefix));
    if (it == device_index_.end()) return Status::DataLoss();
    (local ? ledgers_.device_local : ledgers_.device_central)[it->second] =
        std::move(rdp);
    ledgers_.charged[it->second] = true;
  }
  epsilon_ = EpsilonMemo(*accountant_, job_.config.delta);
  // The job's config does not change: these two curves neither.
  worst_central_rdp_ = accountant_->RoundRdp(
      job_.config.policy == privacy::Policy::kTrustedAggregator
          ? CentralMechanism(0)
          : CentralMechanism(static_cast<size_t>(job_.config.m_min)));
  local_rdp_ = accountant_->RoundRdp(LocalMechanism());
  ledgers_.device_central_epsilon.assign(devices_.size(), 0.0);
  ledgers_.budget_central.assign(devices_.size(), std::nan(""));
  ledgers_.budget_local.assign(devices_.size(), std::nan(""));
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (!ledgers_.charged[i]) continue;
    ledgers_.device_central_epsilon[i] =
        epsilon_.Epsilon(ledgers_.device_central[i]);
  }
  central_epsilon_ =
      CentralEpsilon(ledgers_.central, ledgers_.device_central_epsilon);
  return Status::Ok();
}

double RoundEngine::OwnNoiseMultiplier() const {
  return algorithms::Get(job_.config.algorithm).OwnNoiseMultiplier(job_.config);
}

RoundMechanism RoundEngine::CentralMechanism(size_t m) const {
  const jobs::JobConfig& c = job_.config;
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    // prox-admm only (ValidateJobConfig). Sum of clipped 2λ(x−z)
    // (sensitivity 2λC, add/remove) plus N(0,(λσ)²): ν = σ/(2C), rate q.
    return {OwnNoiseMultiplier(), c.q};
  }
  if (c.policy == privacy::Policy::kParticipationOwnNoise) {
    // Only the device's own noise counts (docs/privacy.md).
    return {OwnNoiseMultiplier(), 1.0};
  }
  // Participation: the m_k accepted uploads' noises add up: ν·√m_k.
  return {OwnNoiseMultiplier() * std::sqrt(static_cast<double>(m)), 1.0};
}

RoundMechanism RoundEngine::LocalMechanism() const {
  // Local DP of one participation: replace-one doubles the zero-out
  // sensitivity (4λC, 2C, 2 S1/(ρ + 1/η_k)) with the same own noise.
  return {OwnNoiseMultiplier() / 2, 1.0};
}

double RoundEngine::CentralEpsilon(
    const std::vector<double>& central,
    const std::vector<double>& device_central_epsilon) {
  if (job_.config.policy == privacy::Policy::kTrustedAggregator) {
    return epsilon_.Epsilon(central);
  }
  const std::vector<double>& eps = device_central_epsilon;
  return eps.empty() ? 0.0 : *std::max_element(eps.begin(), eps.end());
}

bool RoundEngine::WithinBudget() {
  const jobs::JobConfig& c = job_.config;
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    std::vector<double> next = ledgers_.central;
    ComposeRdp(next, worst_central_rdp_);
    return epsilon_.Epsilon(next) <=
           std::min(c.central_budget, c.device_budget);
  }
  // Worst case for the coming round: only m_min uploads (least noise), and
  // any enrolled device may be among them.
  const std::vector<double>& central_round = worst_central_rdp_;
  const std::vector<double>& local_round = local_rdp_;
  // Only devices whose ledger changed since the last check are reconverted
  // (into one buffer: no allocation per device).
  std::vector<double> next;
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (std::isnan(ledgers_.budget_central[i])) {
      next = ledgers_.device_central[i];
      ComposeRdp(next, central_round);
      ledgers_.budget_central[i] = epsilon_.Epsilon(next);
      next = ledgers_.device_local[i];
      ComposeRdp(next, local_round);
      ledgers_.budget_local[i] = epsilon_.Epsilon(next);
    }
    if (!(ledgers_.budget_central[i] <= c.central_budget) ||
        !(ledgers_.budget_local[i] <= c.device_budget)) {
      return false;
    }
  }
  return true;
}

Status RoundEngine::SetState(jobs::JobState state) {
  EDGEADMM_TRY(jobs::SetJobState(*db_, job_.id, state));
  job_.state = state;
  EDGEADMM_LOG_INFO("job %s: %s", job_.config.name.c_str(),
                    jobs::JobStateName(state));
  return Status::Ok();
}

Status RoundEngine::RefreshJobState() {
  // Cached: the daemon runs this every 10 ms.
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("SELECT state FROM jobs WHERE id = ?"));
  stmt->Bind(1, job_.id);
  EDGEADMM_TRY(stmt->StepRow());
  EDGEADMM_TRY_ASSIGN(job_.state, jobs::ParseJobState(stmt->ColumnText(0)));
  return Status::Ok();
}

Status RoundEngine::Advance(int64_t now_ms) {
  EDGEADMM_TRY(RefreshJobState());
  if (open_.has_value) {
    if (job_.state != jobs::JobState::kRunning) {
      EDGEADMM_TRY(DiscardRound(now_ms));
    } else if (now_ms >= open_.deadline_ms) {
      EDGEADMM_TRY(CloseRound(now_ms));
    } else if (round_complete()) {
      CloseCompleteRound(now_ms);
    }
  }
  if (!open_.has_value && job_.state == jobs::JobState::kRunning) {
    EDGEADMM_TRY(OpenNextRound(now_ms));
  }
  return Status::Ok();
}

Status RoundEngine::OpenNextRound(int64_t now_ms) {
  if (iteration_ >= job_.config.rounds) {
    return SetState(jobs::JobState::kCompleted);
  }
  if (!WithinBudget()) return SetState(jobs::JobState::kBudgetExhausted);
  EDGEADMM_TRY_ASSIGN(const std::vector<size_t> cohort,
                      SampleCohort(job_.config, devices_.size(), *rng_));
  OpenRound round;
  round.has_value = true;
  round.round_id = next_round_id_;
  round.deadline_ms =
      now_ms + static_cast<int64_t>(job_.config.deadline_seconds * 1000);
  round.in_cohort.assign(devices_.size(), false);
  for (size_t i : cohort) round.in_cohort[i] = true;
  round.cohort_size = cohort.size();
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("INSERT INTO rounds(job_id, round_id, state, "
                         "cohort_size, started_at) VALUES (?, ?, 'open', ?, "
                         "?)"));
  stmt->Bind(1, job_.id)
      .Bind(2, round.round_id)
      .Bind(3, static_cast<int64_t>(round.cohort_size))
      .Bind(4, now_ms);
  EDGEADMM_TRY(stmt->Run());
  ++next_round_id_;
  open_ = std::move(round);
  // A cohort below m_min can never commit: discard it now.
  if (open_.cohort_size < static_cast<size_t>(job_.config.m_min)) {
    return DiscardRound(now_ms);
  }
  return Status::Ok();
}

Status RoundEngine::CloseRound(int64_t now_ms) {
  if (open_.accepted.size() < static_cast<size_t>(job_.config.m_min)) {
    return DiscardRound(now_ms);
  }
  RoundSummary summary;
  const Status status = CommitRound(now_ms, summary);
  // Whatever happened, the round is over in memory; on failure it stays
  // 'open' in the store and becomes 'lost' at the next Open.
  open_ = OpenRound();
  EDGEADMM_TRY(status);
  char metrics[128] = "";
  if (validator_ != nullptr) {
    summary.metrics = validator_->Evaluate(model_.z);
    summary.validated = true;
    const int used = std::snprintf(
        metrics, sizeof(metrics), ", validation loss %.6g objective %.6g",
        summary.metrics.loss, summary.metrics.objective);
    if (summary.metrics.has_accuracy && used > 0 &&
        static_cast<size_t>(used) < sizeof(metrics)) {
      std::snprintf(metrics + used, sizeof(metrics) - static_cast<size_t>(used),
                    " accuracy %.4f", summary.metrics.accuracy);
    }
  }
  EDGEADMM_LOG_INFO(
      "job %s round %lld: committed iteration %lld/%lld, %zu/%zu uploads, "
      "central epsilon %.6g%s",
      job_.config.name.c_str(), static_cast<long long>(summary.round_id),
      static_cast<long long>(summary.iteration),
      static_cast<long long>(job_.config.rounds), summary.participants,
      summary.cohort_size, summary.central_epsilon, metrics);
  if (listener_) listener_(summary);
  if (iteration_ >= job_.config.rounds) {
    job_.state = jobs::JobState::kCompleted;
    EDGEADMM_LOG_INFO("job %s: completed", job_.config.name.c_str());
  }
  return Status::Ok();
}

Status RoundEngine::CommitRound(int64_t now_ms, RoundSummary& summary) {
  const jobs::JobConfig& c = job_.config;
  const size_t m = open_.accepted.size();
  std::vector<std::vector<double>> uploads;
  uploads.reserve(m);
  // Moved out: CloseRound drops the open round whatever happens here.
  for (auto& [index, upload] : open_.accepted) {
    uploads.push_back(std::move(upload.values));
  }
  ServerModel next_model = model_;
  EDGEADMM_TRY(ApplyRound(c, job_.n, uploads, *rng_, next_model));

  // Ledger charges of this round, applied to ledgers_ only after the commit.
  // Only the participants' ledgers change: copying all n of them per round
  // was a large share of the round's allocations.
  const RoundMechanism central = CentralMechanism(m);
  const std::vector<double> central_rdp = accountant_->RoundRdp(central);
  std::vector<double> next_central = ledgers_.central;
  std::vector<double> next_device_epsilon = ledgers_.device_central_epsilon;
  struct Charge {
    size_t index;
    std::vector<double> central;
    std::vector<double> local;
    double local_epsilon;
  };
  std::vector<Charge> charges;
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    ComposeRdp(next_central, central_rdp);
  } else {
    const std::vector<double>& local_rdp = local_rdp_;
    charges.reserve(m);
    for (const auto& [index, upload] : open_.accepted) {
      Charge charge{index, ledgers_.device_central[index],
                    ledgers_.device_local[index], 0.0};
      ComposeRdp(charge.central, central_rdp);
      ComposeRdp(charge.local, local_rdp);
      next_device_epsilon[index] = epsilon_.Epsilon(charge.central);
      charge.local_epsilon = epsilon_.Epsilon(charge.local);
      charges.push_back(std::move(charge));
    }
  }
  const double central_epsilon =
      CentralEpsilon(next_central, next_device_epsilon);
  const int64_t iteration = iteration_ + 1;

  EDGEADMM_TRY_ASSIGN(store::Transaction tx, store::Transaction::Begin(*db_));
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement round,
      db_->PrepareCached("UPDATE rounds SET state = 'committed', iteration = "
                         "?, participants = ?, noise_multiplier = ?, "
                         "sampling_rate = ?, closed_at = ? WHERE job_id = ? "
                         "AND round_id = ? AND state = 'open'"));
  round->Bind(1, iteration)
      .Bind(2, static_cast<int64_t>(m))
      .Bind(3, central.noise_multiplier)
      .Bind(4, central.sampling_rate)
      .Bind(5, now_ms)
      .Bind(6, job_.id)
      .Bind(7, open_.round_id);
  EDGEADMM_TRY(round->Run());
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement upload,
      db_->PrepareCached("INSERT INTO uploads(job_id, round_id, device_id, "
                         "digest, payload) VALUES (?, ?, ?, ?, ?)"));
  for (const auto& [index, accepted] : open_.accepted) {
    upload->Bind(1, job_.id)
        .Bind(2, open_.round_id)
        .Bind(3, devices_[index])
        .BindBlob(4, UploadDigest(accepted.payload))
        .BindBlob(5, accepted.payload);
    EDGEADMM_TRY(upload->Run());
    EDGEADMM_TRY(upload->Reset());
  }
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement model,
      db_->PrepareCached("INSERT INTO models(job_id, iteration, round_id, z, "
                         "server_state) VALUES (?, ?, ?, ?, ?)"));
  model->Bind(1, job_.id)
      .Bind(2, iteration)
      .Bind(3, open_.round_id)
      .BindDoubles(4, next_model.z)
      .BindDoubles(5, next_model.state);
  EDGEADMM_TRY(model->Run());
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement ledger,
      db_->PrepareCached("INSERT INTO ledger(job_id, scope, round_id, "
                         "epsilon, rdp) VALUES (?, ?, ?, ?, ?)"));
  std::string scope;  // one buffer for the scopes of all rows
  auto write_ledger = [&](const char* prefix, const std::string& id,
                          const std::vector<double>& rdp,
                          double epsilon) -> Status {
    scope.assign(prefix).append(id);
    ledger->Bind(1, job_.id)
        .Bind(2, scope)
        .Bind(3, open_.round_id)
        .Bind(4, epsilon)
        .BindDoubles(5, rdp);
    EDGEADMM_TRY(ledger->Run());
    return ledger->Reset();
  };
  if (c.policy == privacy::Policy::kTrustedAggregator) {
    EDGEADMM_TRY(
        write_ledger(kCentralScope, "", next_central, central_epsilon));
  } else {
    for (const Charge& charge : charges) {
      const std::string& id = devices_[charge.index];
      EDGEADMM_TRY(write_ledger(kDeviceCentralPrefix, id, charge.central,
                                next_device_epsilon[charge.index]));
      EDGEADMM_TRY(write_ledger(kDeviceLocalPrefix, id, charge.local,
                                charge.local_epsilon));
    }
    // The central row carries the worst device's curve.
    const std::vector<double>& eps = next_device_epsilon;
    const size_t worst = static_cast<size_t>(
        std::max_element(eps.begin(), eps.end()) - eps.begin());
    const std::vector<double>* worst_curve = &ledgers_.device_central[worst];
    for (const Charge& charge : charges) {
      if (charge.index == worst) worst_curve = &charge.central;
    }
    EDGEADMM_TRY(
        write_ledger(kCentralScope, "", *worst_curve, central_epsilon));
  }
  if (iteration >= c.rounds) {
    EDGEADMM_TRY_ASSIGN(
        store::CachedStatement done,
        db_->PrepareCached("UPDATE jobs SET state = 'completed' WHERE id = ?"));
    done->Bind(1, job_.id);
    EDGEADMM_TRY(done->Run());
  }
  EDGEADMM_TRY(tx.Commit());

  model_ = std::move(next_model);
  ledgers_.central = std::move(next_central);
  ledgers_.device_central_epsilon = std::move(next_device_epsilon);
  for (Charge& charge : charges) {
    ledgers_.device_central[charge.index] = std::move(charge.central);
    ledgers_.device_local[charge.index] = std::move(charge.local);
    ledgers_.charged[charge.index] = true;
    ledgers_.budget_central[charge.index] = std::nan("");
    ledgers_.budget_local[charge.index] = std::nan("");
  }
  central_epsilon_ = central_epsilon;
  iteration_ = iteration;
  released_round_id_ = open_.round_id;
  released_participants_ = static_cast<int64_t>(m);
  summary.round_id = open_.round_id;
  summary.iteration = iteration;
  summary.committed = true;
  summary.cohort_size = open_.cohort_size;
  summary.participants = m;
  summary.central_epsilon = central_epsilon;
  return Status::Ok();
}

Status RoundEngine::DiscardRound(int64_t now_ms) {
  RoundSummary summary;
  summary.round_id = open_.round_id;
  summary.iteration = iteration_;
  summary.cohort_size = open_.cohort_size;
  summary.participants = open_.accepted.size();
  summary.central_epsilon = central_epsilon_;
  open_ = OpenRound();
  EDGEADMM_TRY_ASSIGN(
      store::CachedStatement stmt,
      db_->PrepareCached("UPDATE rounds SET state = 'discarded', "
                         "participants = ?, closed_at = ? WHERE job_id = ? "
                         "AND round_id = ?"));
  stmt->Bind(1, static_cast<int64_t>(summary.participants))
      .Bind(2, now_ms)
      .Bind(3, job_.id)
      .Bind(4, summary.round_id);
  EDGEADMM_TRY(stmt->Run());
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
  // round opens at once. A failure loses this round (it stays 'open' in the
  // store and becomes 'lost'); the engine goes on with the next one.
  const int64_t round_id = open_.round_id;
  Status status = CloseRound(now_ms);
  if (status.ok() && !open_.has_value &&
      job_.state == jobs::JobState::kRunning) {
    status = OpenNextRound(now_ms);
  }
  if (!status.ok()) {
    EDGEADMM_LOG_ERROR("job %s: closing round %lld failed: %s",
                       job_.config.name.c_str(),
                       static_cast<long long>(round_id), status.str());
  }
}

UploadVerdict RoundEngine::Judge(std::string_view identity,
                                 const Upload& upload, size_t* index,
                                 std::vector<double>* decoded) const {
  if (identity != upload.device_id) return UploadVerdict::kIdentityMismatch;
  auto it = device_index_.find(upload.device_id);
  if (it == device_index_.end()) return UploadVerdict::kUnknownDevice;
  *index = it->second;
  auto record = registry_.Get(upload.device_id);
  if (!record.ok() || !record->enabled) return UploadVerdict::kDeviceDisabled;
  if (upload.job_id != job_.id) return UploadVerdict::kWrongJob;
  if (job_.state != jobs::JobState::kRunning) {
    return UploadVerdict::kJobNotRunning;
  }
  if (!open_.has_value || upload.round_id != open_.round_id) {
    // A retransmission whose round has already committed (its receipt was
    // lost) gets the duplicate receipt, so the device learns it counted.
    return CommittedUploadVerdict(upload);
  }
  if (!open_.in_cohort[*index]) return UploadVerdict::kNotInCohort;
  auto values = store::DecodeFloats(upload.vector);
  if (!values.ok() ||
      values->size() != static_cast<size_t>(UploadLength(job_.config))) {
    return UploadVerdict::kMalformed;
  }
  // The algorithm's own value bounds (e.g. prox-admm's 2λC norm under
  // trusted-aggregator, which the sensitivity relies on).
  if (!algorithms::Get(job_.config.algorithm)
           .UploadWithinBounds(job_.config, *values)) {
    return UploadVerdict::kMalformed;
  }
  auto previous = open_.accepted.find(*index);
  if (previous != open_.accepted.end()) {
    return previous->second.fingerprint() == upload.fingerprint_or_vector()
               ? UploadVerdict::kDuplicate
               : UploadVerdict::kConflictingDuplicate;
  }
  *decoded = std::move(values).value();
  return UploadVerdict::kAccepted;
}

UploadVerdict RoundEngine::CommittedUploadVerdict(const Upload& upload) const {
  auto stmt = db_->PrepareCached(
      "SELECT digest FROM uploads WHERE job_id = ? AND round_id = ? AND "
      "device_id = ?");
  if (!stmt.ok()) return UploadVerdict::kStaleRound;
  store::Statement& row = **stmt;
  row.Bind(1, job_.id).Bind(2, upload.round_id).Bind(3, upload.device_id);
  if (!row.StepRow().ok()) return UploadVerdict::kStaleRound;
  return row.ColumnBlob(0) == UploadDigest(upload.vector)
             ? UploadVerdict::kDuplicate
             : UploadVerdict::kConflictingDuplicate;
}

UploadVerdict RoundEngine::Submit(std::string_view identity,
                                  const Upload& upload, int64_t now_ms) {
  return Submit(identity, Upload(upload), now_ms);
}

UploadVerdict RoundEngine::Submit(std::string_view identity, Upload&& upload,
                                  int64_t now_ms) {
  size_t index = 0;
  std::vector<double> decoded;
  const UploadVerdict verdict = Judge(identity, upload, &index, &decoded);
  if (verdict != UploadVerdict::kAccepted) return verdict;
  // Moves only the byte vectors: `identity` may view upload.device_id.
  open_.accepted.emplace(
      index, OpenRound::Accepted{std::move(upload.vector), std::move(decoded),
                                 std::move(upload.fingerprint)});
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
  if (it != device_index_.end() && open_.in_cohort[it->second] &&
      open_.accepted.count(it->second) == 0) {
    task.kind = Task::Kind::kTrain;
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
