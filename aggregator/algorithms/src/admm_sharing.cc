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
  const auto limit = static_cast<int64_t>(wire::kMaxDimension);
  if (s.records < 1 || s.records > limit) {
    return Bad("records",
               "must be in [1, " + std::to_string(limit) +
                   "]: the task's v and y and every party's share are "
                   "N-vectors, and this build's messages carry at most " +
                   std::to_string(limit) +
                   " values (EDGEADMM_CFG_MAX_FEATURES); got " +
                   std::to_string(s.records));
  }
  if (!Positive(s.rho)) return Bad("rho", "must be finite and > 0");
  if (!Positive(s.lambda)) return Bad("lambda", "must be finite and > 0");
  if (s.labels.empty()) {
    return Bad("labels", "give the gateway's label file (LIBSVM)");
  }
  if (s.barrier_retries < 0) return Bad("barrier_retries", "must be >= 0");
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
        p.delta = s.target_delta > 0 ? s.target_delta : 1e-5;
        const double rho_z =
            t * s.sensitivity * s.sensitivity / (2 * s.sigma * s.sigma);
        p.epsilon = rho_z + 2 * std::sqrt(rho_z * std::log(1 / p.delta));
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

namespace {

// The gateway's labels, read once per (file, N) for the daemon's lifetime.
host::ErrorOr<std::vector<double>> CachedLabels(const jobs::JobConfig& c) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<double>> cache;
  const std::string key = c.admm_sharing.labels + "#" +
                          std::to_string(c.admm_sharing.records) + "#" +
                          std::to_string(c.dimension);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  EDGEADMM_HOST_TRY_ASSIGN(std::vector<double> labels, LoadSharingLabels(c));
  return cache.emplace(key, std::move(labels)).first->second;
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
  return host::Error::Ok();
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
  EDGEADMM_TRY(ApplySharingRound(c, *labels, uploads, state, broadcast));
  model.state = state.z;
  model.state.insert(model.state.end(), state.y.begin(), state.y.end());
  model.z = broadcast.v;
  model.z.insert(model.z.end(), broadcast.y.begin(), broadcast.y.end());
  return Status::Ok();
}

}  // namespace edgeadmm::algorithms
