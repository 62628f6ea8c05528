#include "edgeadmm/algorithms/admm_sharing.h"

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "edgeadmm/algorithms/admm_sharing_server.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/privacy/paper_accountants.h"
#include "edgeadmm/wire/protocol.h"
#include "unit_support.h"

namespace edgeadmm::algorithms {

Status ApplySharingRound(const jobs::JobConfig& config,
                         const std::vector<double>& labels,
                         const std::vector<std::vector<double>>& shares,
                         SharingState& state, SharingBroadcast& broadcast) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  if (static_cast<int64_t>(shares.size()) != s.parties ||
      static_cast<int64_t>(labels.size()) != s.records) {
    return Status::InvalidArgument();  // the barrier: every party
  }
  AdmmSharingServer server;
  EDGEADMM_TRY(server.Init(labels, s.rho, SharingLossWeight(s)));
  if (!state.z.empty() || !state.y.empty()) {
    EDGEADMM_TRY(server.Restore(state.z, state.y));
  }
  EDGEADMM_TRY(server.ApplyRound(shares, nullptr));
  state.z = server.z();
  state.y = server.y();
  broadcast.v = server.v();
  broadcast.y = server.y();
  return Status::Ok();
}

host::ErrorOr<SharingScore> ScorePartialSums(
    const std::vector<std::vector<double>>& partial_scores,
    const std::vector<double>& labels) {
  if (partial_scores.empty() || labels.empty()) {
    return host::Error::InvalidArgument("no partial scores or no labels");
  }
  std::vector<double> t(labels.size(), 0.0);
  for (const auto& p : partial_scores) {
    if (p.size() != labels.size()) {
      return host::Error::InvalidArgument(
          "a party's partial scores do not cover the test records");
    }
    for (size_t i = 0; i < t.size(); ++i) {
      if (!std::isfinite(p[i])) {
        return host::Error::InvalidArgument("a partial score is not finite");
      }
      t[i] += p[i];
    }
  }
  SharingScore score;
  for (size_t i = 0; i < t.size(); ++i) {
    const double u = labels[i] * t[i];
    score.log_loss +=
        u > 0 ? std::log1p(std::exp(-u)) : -u + std::log1p(std::exp(u));
    score.accuracy += u > 0 ? 1.0 : 0.0;
  }
  score.log_loss /= static_cast<double>(t.size());
  score.accuracy /= static_cast<double>(t.size());
  return score;
}

Status ApplyScoredSharingRound(const jobs::JobConfig& config,
                               const std::vector<double>& labels,
                               const std::vector<double>& test_labels,
                               const std::vector<std::vector<double>>& uploads,
                               SharingState& state, SharingBroadcast& broadcast,
                               SharingScore& score) {
  const auto n = static_cast<size_t>(config.admm_sharing.records);
  const auto k = static_cast<size_t>(config.admm_sharing.test_records);
  if (k == 0 || test_labels.size() != k) return Status::InvalidArgument();
  std::vector<std::vector<double>> shares;
  std::vector<std::vector<double>> partial;
  for (const std::vector<double>& u : uploads) {
    if (u.size() != n + k) return Status::InvalidArgument();
    shares.emplace_back(u.begin(), u.begin() + static_cast<ptrdiff_t>(n));
    partial.emplace_back(u.begin() + static_cast<ptrdiff_t>(n), u.end());
  }
  host::ErrorOr<SharingScore> scored = ScorePartialSums(partial, test_labels);
  if (!scored.ok()) return Status::InvalidArgument();
  SharingState next = state;
  EDGEADMM_TRY(ApplySharingRound(config, labels, shares, next, broadcast));
  state = std::move(next);
  score = *scored;
  return Status::Ok();
}

namespace {

// A label file's first labels, read once per (what, file, count) for the
// daemon's lifetime.
host::ErrorOr<std::vector<double>> Cached(
    const jobs::JobConfig& c, const std::string& path, int64_t count,
    host::ErrorOr<std::vector<double>> (*load)(const jobs::JobConfig&)) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<double>> cache;
  const std::string key =
      path + "#" + std::to_string(count) + "#" + std::to_string(c.dimension);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  EDGEADMM_HOST_TRY_ASSIGN(std::vector<double> labels, load(c));
  return cache.emplace(key, std::move(labels)).first->second;
}

// The gateway's training labels (N) and test labels (K).
host::ErrorOr<std::vector<double>> CachedLabels(const jobs::JobConfig& c) {
  return Cached(c, c.admm_sharing.labels, c.admm_sharing.records,
                LoadSharingLabels);
}
host::ErrorOr<std::vector<double>> CachedTestLabels(const jobs::JobConfig& c) {
  return Cached(c, "test:" + c.admm_sharing.test_labels,
                c.admm_sharing.test_records, LoadSharingTestLabels);
}

}  // namespace

host::Error AdmmSharing::Resolve(jobs::JobConfig& c) const {
  const int64_t n = c.admm_sharing.parties;
  if ((c.m != 0 && c.m != n) || (c.m_min != 1 && c.m_min != n)) {
    return host::Error::InvalidArgument(
        "sampling: admm-sharing takes every party in every round (omit "
        "sampling.m and sampling.m_min)");
  }
  return ResolveEveryoneWithoutGaussianNoise(
      c, n,
      "privacy.sigma: admm-sharing's noise is admm_sharing.noise (per "
      "party); give neither privacy.sigma nor privacy.target_epsilon",
      "privacy: central_budget and device_budget do not apply to "
      "admm-sharing (its per-party epsilon is planned from "
      "[admm_sharing]); omit them or give inf");
}

host::Error AdmmSharing::Validate(const jobs::JobConfig& c) const {
  EDGEADMM_HOST_TRY(RefuseProxAdmmOnlyOptions(c));
  if (c.regularizer.kind != RegularizerKind::kNone) {
    return host::Error::InvalidArgument(
        "regularizer.kind: admm-sharing's regularizer is "
        "(admm_sharing.lambda/2)||x_m||^2 on every party; give kind = "
        "\"none\"");
  }
  if (!c.validation_data.empty()) {
    return host::Error::InvalidArgument(
        "validation.data: admm-sharing releases no model vector of "
        "job.dimension to validate (the parties keep x_m)");
  }
  EDGEADMM_HOST_TRY(ValidateAdmmSharing(c));
  if (c.admm_sharing.parties > UINT32_MAX || c.rounds > UINT32_MAX) {
    return host::Error::InvalidArgument(
        "admm_sharing.parties and job.rounds: must be < 2^32");
  }
  host::ErrorOr<std::vector<double>> labels = LoadSharingLabels(c);
  if (!labels.ok()) return labels.error();
  if (c.admm_sharing.test_records > 0) {
    host::ErrorOr<std::vector<double>> test = LoadSharingTestLabels(c);
    if (!test.ok()) return test.error();
  }
  return host::Error::Ok();
}

int64_t AdmmSharing::UploadLengthAt(const jobs::JobConfig& c,
                                    int64_t iteration) const {
  // The last round (and any late copy of its uploads after the commit).
  return iteration + 1 >= c.rounds ? MaxUploadLength(c) : UploadLength(c);
}

edgeadmm_wire_UpdateKind AdmmSharing::UpdateKindAt(const jobs::JobConfig& c,
                                                   int64_t iteration) const {
  return c.admm_sharing.test_records > 0 && iteration + 1 >= c.rounds
             ? edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE_AND_SCORES
             : edgeadmm_wire_UpdateKind_UPDATE_KIND_SHARE;
}

void AdmmSharing::FillTask(const jobs::JobConfig& c, int64_t /*n*/,
                           int64_t iteration,
                           edgeadmm_wire_RoundTask& h) const {
  const jobs::AdmmSharingConfig& s = c.admm_sharing;
  h.algorithm = edgeadmm_wire_Algorithm_ALGORITHM_SHARING;
  h.which_params = edgeadmm_wire_RoundTask_sharing_params_tag;
  edgeadmm_wire_SharingParams& p = h.params.sharing_params;
  p = edgeadmm_wire_SharingParams_init_zero;
  p.parties = static_cast<uint32_t>(s.parties);
  p.records = static_cast<uint32_t>(s.records);
  p.rho = s.rho;
  p.lambda = s.lambda;
  p.noise = static_cast<uint32_t>(s.noise);
  // Round `iteration` (committed so far) computes x_m(iteration + 1).
  p.iteration = static_cast<uint32_t>(iteration + 1);
  p.rounds = static_cast<uint32_t>(c.rounds);
  // The scoring phase rides on the last iteration (x̃_m(T) is final).
  if (s.test_records > 0 && iteration + 1 == c.rounds) {
    p.score_records = static_cast<uint32_t>(s.test_records);
    p.score_noise = static_cast<uint32_t>(s.score_noise);
    if (s.score_noise == jobs::SharingScoreNoise::kGaussian) {
      p.score_sigma = s.score_sigma;
      p.score_sensitivity = SharingScoreSensitivity(s);  // 2·score_clip
    }
  }
  // The party's block and σ_m: FillNodeTask (every task is per party).
  p.columns = static_cast<uint32_t>(s.columns.empty() ? 1 : s.columns[0]);
}

void AdmmSharing::FillNodeTask(const jobs::JobConfig& c, int64_t node,
                               edgeadmm_wire_RoundTask& h) const {
  host::ErrorOr<std::vector<SharingPartyPrivacy>> plan = PlanSharingPrivacy(c);
  if (!plan.ok() || node < 0 || node >= static_cast<int64_t>(plan->size())) {
    return;
  }
  const SharingPartyPrivacy& party = (*plan)[static_cast<size_t>(node)];
  edgeadmm_wire_SharingParams& p = h.params.sharing_params;
  p.party = static_cast<uint32_t>(node);
  p.first_column = static_cast<uint32_t>(party.first_column);
  p.columns = static_cast<uint32_t>(party.columns);
  p.sigma = party.sigma;
  p.sensitivity =
      party.mode == jobs::SharingNoiseMode::kRigorous ? party.sensitivity : 0;
}

void AdmmSharing::NodeTaskVector(
    const jobs::JobConfig& c, int64_t node,
    const std::vector<std::vector<double>>& last_uploads,
    std::vector<double>& vector) const {
  // `vector` is the released (v, y); u_m = v − s_m(t), the party's own last
  // released share taken out.
  const size_t n = static_cast<size_t>(c.admm_sharing.records);
  if (vector.size() != 2 * n || node < 0 ||
      static_cast<size_t>(node) >= last_uploads.size()) {
    return;
  }
  const std::vector<double>& own = last_uploads[static_cast<size_t>(node)];
  if (own.size() != n) return;  // before the first commit: v = 0, s_m = 0
  for (size_t i = 0; i < n; ++i) vector[i] -= own[i];
}

Status AdmmSharing::ApplyRound(const jobs::JobConfig& c, int64_t n,
                               const std::vector<std::vector<double>>& uploads,
                               RoundNoise& /*noise*/,
                               ServerModel& model) const {
  const size_t records = static_cast<size_t>(c.admm_sharing.records);
  if (n != c.admm_sharing.parties ||
      static_cast<int64_t>(uploads.size()) != n) {
    return Status::FailedPrecondition();
  }
  host::ErrorOr<std::vector<double>> labels = CachedLabels(c);
  if (!labels.ok()) return Status::FailedPrecondition();
  SharingState state;
  if (model.state.size() == 2 * records) {
    state.z.assign(model.state.begin(), model.state.begin() + records);
    state.y.assign(model.state.begin() + records, model.state.end());
  } else if (!model.state.empty() &&
             model.state != std::vector<double>(model.state.size(), 0.0)) {
    return Status::FailedPrecondition();  // a corrupt state
  }
  SharingBroadcast broadcast;
  const bool scored = c.admm_sharing.test_records > 0 && !uploads.empty() &&
                      uploads[0].size() != records;
  if (scored) {
    host::ErrorOr<std::vector<double>> test = CachedTestLabels(c);
    if (!test.ok()) return Status::FailedPrecondition();
    SharingScore score;
    EDGEADMM_TRY(ApplyScoredSharingRound(c, *labels, *test, uploads, state,
                                         broadcast, score));
    model.test_score.records = c.admm_sharing.test_records;
    model.test_score.log_loss = score.log_loss;
    model.test_score.accuracy = score.accuracy;
  } else {
    EDGEADMM_TRY(ApplySharingRound(c, *labels, uploads, state, broadcast));
  }
  model.state = state.z;
  model.state.insert(model.state.end(), state.y.begin(), state.y.end());
  model.z = broadcast.v;
  model.z.insert(model.z.end(), broadcast.y.begin(), broadcast.y.end());
  return Status::Ok();
}

}  // namespace edgeadmm::algorithms
