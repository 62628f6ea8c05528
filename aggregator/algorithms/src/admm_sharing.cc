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
namespace {

bool Positive(double x) { return std::isfinite(x) && x > 0; }

host::Error Bad(const std::string& key, const std::string& what) {
  return host::Error::InvalidArgument("admm_sharing." + key + ": " + what);
}

// Paper mode's C_m: the configured C, or Lemma 1 from (b1, c1).
double PaperSensitivity(const jobs::AdmmSharingConfig& s, int64_t columns) {
  if (s.paper_c > 0) return s.paper_c;
  return 3.0 / (static_cast<double>(columns) * s.rho) *
         (s.lambda * s.paper_c1 +
          (1.0 + static_cast<double>(s.parties) * s.rho) * s.paper_b1);
}

// The scoring phase's keys: none without test_records; with it, the test
// labels, N + K within the wire's vector limit and an explicit score_noise
// (gaussian: σ_s, Δ_s > 0; exact: neither).
host::Error ValidateSharingScore(const jobs::AdmmSharingConfig& s) {
  const bool score_keys = !s.test_labels.empty() || s.score_noise_given ||
                          s.score_sigma != 0 || s.score_sensitivity != 0;
  if (s.test_records == 0) {
    if (score_keys) {
      return Bad("test_records",
                 "give test_records (>= 1) with test_labels and score_noise "
                 "(the scoring phase), or none of them");
    }
    return host::Error::Ok();
  }
  const auto limit = static_cast<int64_t>(wire::kMaxSharingRecords);
  if (s.test_records < 1 || s.test_records > limit - s.records) {
    return Bad("test_records",
               "must be in [1, " + std::to_string(limit - s.records) +
                   "]: the last upload carries the share and the partial "
                   "scores, records + test_records <= " +
                   std::to_string(limit) +
                   " values (EDGEADMM_CFG_MAX_SHARING_RECORDS); got " +
                   std::to_string(s.test_records));
  }
  if (s.test_labels.empty()) {
    return Bad("test_labels", "give the gateway's test label file (LIBSVM)");
  }
  if (!s.score_noise_given) {
    return Bad("score_noise",
               "choose \"gaussian\" (score_sigma, score_sensitivity: charged "
               "on the devices) or \"exact\" (an uncovered release of the "
               "partial scores; docs/privacy.md)");
  }
  if (s.score_noise == jobs::SharingScoreNoise::kExact) {
    if (s.score_sigma != 0 || s.score_sensitivity != 0) {
      return Bad("score_noise",
                 "\"exact\" takes no score_sigma or "
                 "score_sensitivity");
    }
    return host::Error::Ok();
  }
  if (!Positive(s.score_sigma)) {
    return Bad("score_sigma", "must be finite and > 0");
  }
  if (!Positive(s.score_sensitivity)) {
    return Bad("score_sensitivity",
               "must be finite and > 0 (the L2 bound of the partial-score "
               "vector's change, given explicitly)");
  }
  return host::Error::Ok();
}

// ρ-zCDP → (ε, δ): ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).
double ZcdpEpsilon(double rho_z, double delta) {
  return rho_z + 2 * std::sqrt(rho_z * std::log(1 / delta));
}

}  // namespace

double SharingLossWeight(const jobs::AdmmSharingConfig& config) {
  return config.records > 0 ? 1.0 / static_cast<double>(config.records) : 0.0;
}

host::Error ValidateAdmmSharing(const jobs::JobConfig& config) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  if (config.loss != jobs::Loss::kLogistic) {
    return host::Error::InvalidArgument(
        "job.loss: admm-sharing's z-update is the logistic loss's");
  }
  if (config.rounds < 1) {
    return host::Error::InvalidArgument("job.rounds: must be >= 1");
  }
  if (s.parties < 2) {
    return Bad("parties",
               "needs at least 2 parties, got " + std::to_string(s.parties));
  }
  if (static_cast<int64_t>(s.columns.size()) != s.parties) {
    return Bad("columns", "give one column count per party (" +
                              std::to_string(s.parties) + "), got " +
                              std::to_string(s.columns.size()));
  }
  int64_t total = 0;
  for (size_t m = 0; m < s.columns.size(); ++m) {
    if (s.columns[m] < 1) {
      return Bad("columns",
                 "party " + std::to_string(m) + " must hold at least 1 column");
    }
    total += s.columns[m];
  }
  if (total != config.dimension) {
    return Bad("columns",
               "the parties' columns sum to " + std::to_string(total) +
                   ", not job.dimension = " + std::to_string(config.dimension));
  }
  const auto limit = static_cast<int64_t>(wire::kMaxSharingRecords);
  if (s.records < 1 || s.records > limit) {
    return Bad("records",
               "must be in [1, " + std::to_string(limit) +
                   "]: the task's v and y and every party's share are "
                   "N-vectors, and this build's messages carry at most " +
                   std::to_string(limit) +
                   " values (EDGEADMM_CFG_MAX_SHARING_RECORDS); got " +
                   std::to_string(s.records));
  }
  if (!Positive(s.rho)) return Bad("rho", "must be finite and > 0");
  if (!Positive(s.lambda)) return Bad("lambda", "must be finite and > 0");
  if (s.labels.empty()) {
    return Bad("labels", "give the gateway's label file (LIBSVM)");
  }
  if (s.barrier_retries < 0) return Bad("barrier_retries", "must be >= 0");
  EDGEADMM_HOST_TRY(ValidateSharingScore(s));
  const bool paper_keys = s.paper_c != 0 || s.paper_b1 != 0 ||
                          s.paper_c1 != 0 || s.target_epsilon != 0 ||
                          s.target_delta != 0;
  const bool rigorous_keys = s.sigma != 0 || s.sensitivity != 0;
  switch (s.noise) {
    case jobs::SharingNoiseMode::kNone:
      if (paper_keys || rigorous_keys) {
        return Bad("noise", "\"none\" takes no noise parameters");
      }
      return host::Error::Ok();
    case jobs::SharingNoiseMode::kRigorous:
      if (paper_keys && (s.paper_c != 0 || s.paper_b1 != 0 || s.paper_c1 != 0 ||
                         s.target_epsilon != 0)) {
        return Bad("noise",
                   "\"rigorous\" takes sigma, sensitivity and optionally "
                   "target_delta (the paper's C, b1, c1, target_epsilon are "
                   "for \"paper\")");
      }
      if (!Positive(s.sigma)) return Bad("sigma", "must be finite and > 0");
      if (!Positive(s.sensitivity)) {
        return Bad("sensitivity",
                   "must be finite and > 0 (the L2 bound of one share's "
                   "change, given explicitly)");
      }
      if (s.target_delta != 0 && !(s.target_delta > 0 && s.target_delta < 1)) {
        return Bad("target_delta", "must be in (0, 1)");
      }
      return host::Error::Ok();
    case jobs::SharingNoiseMode::kPaper:
      break;
  }
  if (rigorous_keys) {
    return Bad("noise",
               "\"paper\" takes no sigma or sensitivity (sigma is "
               "planned from C and the target)");
  }
  if (s.paper_c != 0) {
    if (!Positive(s.paper_c)) return Bad("paper_c", "must be finite and > 0");
    if (s.paper_b1 != 0 || s.paper_c1 != 0) {
      return Bad("paper_c", "give either C or (b1, c1), not both");
    }
  } else {
    if (!Positive(s.paper_b1)) {
      return Bad("paper_b1",
                 "must be finite and > 0 (or give paper_c): the bound on "
                 "||x||, ||y||, ||z|| of Lemma 1 (heuristic, digest A8.4)");
    }
    if (!Positive(s.paper_c1)) {
      return Bad("paper_c1", "must be finite and > 0 (|R_m''| <= c1)");
    }
  }
  if (!Positive(s.target_epsilon)) {
    return Bad("target_epsilon", "must be finite and > 0");
  }
  if (!(s.target_delta > 0 && s.target_delta < 1)) {
    return Bad("target_delta", "must be in (0, 1)");
  }
  host::ErrorOr<privacy::AdvancedCompositionPlan> plan =
      privacy::Paper000PlanStepEpsilon(s.target_epsilon, s.target_delta,
                                       static_cast<uint64_t>(config.rounds));
  if (!plan.ok()) {
    return Bad("target_epsilon", "cannot be planned over job.rounds = " +
                                     std::to_string(config.rounds) + ": " +
                                     plan.error().message());
  }
  return host::Error::Ok();
}

host::ErrorOr<std::vector<SharingPartyPrivacy>> PlanSharingPrivacy(
    const jobs::JobConfig& config) {
  EDGEADMM_HOST_TRY(ValidateAdmmSharing(config));
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  const auto t = static_cast<double>(config.rounds);
  privacy::AdvancedCompositionPlan plan;
  if (s.noise == jobs::SharingNoiseMode::kPaper) {
    EDGEADMM_HOST_TRY_ASSIGN(plan, privacy::Paper000PlanStepEpsilon(
                                       s.target_epsilon, s.target_delta,
                                       static_cast<uint64_t>(config.rounds)));
  }
  std::vector<SharingPartyPrivacy> out;
  int64_t first = 0;
  for (int64_t m = 0; m < s.parties; ++m) {
    SharingPartyPrivacy p;
    p.party = m;
    p.first_column = first;
    p.columns = s.columns[static_cast<size_t>(m)];
    first += p.columns;
    p.mode = s.noise;
    switch (s.noise) {
      case jobs::SharingNoiseMode::kNone:
        p.epsilon = std::numeric_limits<double>::infinity();
        p.relation = "none (no noise: the shares are released exactly)";
        p.conversion = "none";
        break;
      case jobs::SharingNoiseMode::kPaper:
        p.sensitivity = PaperSensitivity(s, p.columns);
        p.sigma = plan.noise_over_c * p.sensitivity;
        p.step_epsilon = plan.step_epsilon;
        p.step_delta = plan.step_delta;
        p.epsilon = s.target_epsilon;
        p.delta = s.target_delta;
        p.relation =
            "paper 000 Def. 2: one feature column of the party's block "
            "(||D_m - D'_m|| <= 1); the paper's claim, C heuristic";
        p.conversion =
            "paper 000 Thm. 3 per iteration (Gaussian, eps <= 1) + Cor. 1 "
            "advanced composition";
        break;
      case jobs::SharingNoiseMode::kRigorous: {
        p.sigma = s.sigma;
        p.sensitivity = s.sensitivity;
        p.delta = SharingDelta(config);
        double rho_z =
            t * s.sensitivity * s.sensitivity / (2 * s.sigma * s.sigma);
        // The scoring phase's Gaussian composes with the T shares (the
        // device charges both in one step); an exact score is uncovered.
        if (s.test_records > 0) {
          if (s.score_noise == jobs::SharingScoreNoise::kGaussian) {
            rho_z += s.score_sensitivity * s.score_sensitivity /
                     (2 * s.score_sigma * s.score_sigma);
          } else {
            rho_z = std::numeric_limits<double>::infinity();
          }
        }
        p.epsilon = ZcdpEpsilon(rho_z, p.delta);
        p.relation =
            "any change of the party's block that moves one released share "
            "by at most the configured sensitivity in L2 (the operator's "
            "bound, not verified)";
        p.conversion =
            "Gaussian RDP over T releases (rho-zCDP, rho = T*Delta^2/"
            "(2 sigma^2)), eps = rho + 2 sqrt(rho ln(1/delta))";
        break;
      }
    }
    if (s.test_records > 0) {
      if (p.delta == 0) p.delta = SharingDelta(config);
      if (s.score_noise == jobs::SharingScoreNoise::kGaussian) {
        p.score_release = "gaussian";
        p.score_sigma = s.score_sigma;
        p.score_sensitivity = s.score_sensitivity;
        p.score_epsilon =
            ZcdpEpsilon(s.score_sensitivity * s.score_sensitivity /
                            (2 * s.score_sigma * s.score_sigma),
                        p.delta);
        if (s.noise == jobs::SharingNoiseMode::kRigorous) {
          p.conversion +=
              " + the partial scores' Gaussian (rho += Delta_s^2/(2 "
              "sigma_s^2))";
        }
      } else {
        p.score_release = "exact (uncovered)";
        p.score_epsilon = std::numeric_limits<double>::infinity();
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

host::ErrorOr<std::vector<double>> LoadSharingLabels(
    const jobs::JobConfig& config) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  host::ErrorOr<DenseDataset> data = ReadLibsvmFile(
      s.labels, static_cast<size_t>(std::max<int64_t>(config.dimension, 1)));
  if (!data.ok()) {
    return Bad("labels", "cannot read the gateway's label file: " +
                             data.error().message());
  }
  if (static_cast<int64_t>(data->samples) < s.records) {
    return Bad("labels", s.labels + " holds " + std::to_string(data->samples) +
                             " records, fewer than admm_sharing.records = " +
                             std::to_string(s.records));
  }
  return std::vector<double>(data->labels.begin(),
                             data->labels.begin() + s.records);
}

host::ErrorOr<std::vector<double>> LoadSharingTestLabels(
    const jobs::JobConfig& config) {
  const jobs::AdmmSharingConfig& s = config.admm_sharing;
  host::ErrorOr<DenseDataset> data = ReadLibsvmFile(
      s.test_labels,
      static_cast<size_t>(std::max<int64_t>(config.dimension, 1)));
  if (!data.ok()) {
    return Bad("test_labels", "cannot read the gateway's test label file: " +
                                  data.error().message());
  }
  if (static_cast<int64_t>(data->samples) < s.test_records) {
    return Bad("test_labels",
               s.test_labels + " holds " + std::to_string(data->samples) +
                   " records, fewer than admm_sharing.test_records = " +
                   std::to_string(s.test_records));
  }
  return std::vector<double>(data->labels.begin(),
                             data->labels.begin() + s.test_records);
}

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
      p.score_sensitivity = s.score_sensitivity;
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
