// admm-sharing (paper 000, papers/003): the job's configuration: its keys
// validated, each party's privacy planned, and the gateway-held labels
// loaded. The round (task, z-update, scoring) is in admm_sharing.cc.
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "edgeadmm/algorithms/admm_sharing.h"
#include "edgeadmm/algorithms/admm_sharing_server.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/privacy/paper_accountants.h"
#include "edgeadmm/wire/protocol.h"

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

// A clip C and its sensitivity Δ (keys `clip_key`, `delta_key`): at least
// one > 0; C > 0 must be finite, a Δ given beside it must be 2C (to 1e-12
// relative): the device enforces C and the ledgers charge Δ = 2C, so a
// different Δ would be an unchecked number again.
host::Error ValidateClip(double clip, double delta, const char* clip_key,
                         const char* delta_key) {
  if (clip == 0) {
    if (!Positive(delta)) {
      return Bad(clip_key,
                 std::string("must be finite and > 0: the device clips the "
                             "release to this L2 norm, and the ledgers charge "
                             "its sensitivity ") +
                     delta_key + " = 2 * " + clip_key);
    }
    return host::Error::Ok();
  }
  if (!Positive(clip)) return Bad(clip_key, "must be finite and > 0");
  if (delta != 0 && !(std::fabs(delta - 2 * clip) <= 1e-12 * 2 * clip)) {
    return Bad(delta_key,
               "is derived from the clip: " + std::string(delta_key) +
                   " = 2 * " + clip_key + " = " + std::to_string(2 * clip) +
                   " (the most one release moves when the party's data "
                   "change); got " +
                   std::to_string(delta) + ": remove it or make it equal");
  }
  return host::Error::Ok();
}

// The scoring phase's keys: none without test_records; with it, the test
// labels, N + K within the wire's vector limit and an explicit score_noise
// (gaussian: σ_s, Δ_s > 0; exact: neither).
host::Error ValidateSharingScore(const jobs::AdmmSharingConfig& s) {
  const bool score_keys = !s.test_labels.empty() || s.score_noise_given ||
                          s.score_sigma != 0 || s.score_sensitivity != 0 ||
                          s.score_clip != 0;
  if (s.test_records == 0) {
    if (score_keys) {
      return Bad("test_records",
                 "give test_records (>= 1) with test_labels and score_noise "
                 "(the scoring phase), or none of them");
    }
    return host::Error::Ok();
  }
  const auto limit = static_cast<int64_t>(wire::kMaxRecordDimension);
  if (s.test_records < 1 || s.test_records > limit - s.records) {
    return Bad("test_records",
               "must be in [1, " + std::to_string(limit - s.records) +
                   "]: the last upload carries the share and the partial "
                   "scores, records + test_records <= " +
                   std::to_string(limit) +
                   " values (EDGEADMM_CFG_MAX_RECORD_DIMENSION); got " +
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
    if (s.score_sigma != 0 || s.score_sensitivity != 0 || s.score_clip != 0) {
      return Bad("score_noise",
                 "\"exact\" takes no score_sigma, score_clip or "
                 "score_sensitivity");
    }
    return host::Error::Ok();
  }
  if (!Positive(s.score_sigma)) {
    return Bad("score_sigma", "must be finite and > 0");
  }
  return ValidateClip(s.score_clip, s.score_sensitivity, "score_clip",
                      "score_sensitivity");
}

// ρ-zCDP → (ε, δ): ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).
// [admm_sharing] noise = none | rigorous | paper and the keys each takes.
host::Error ValidateSharingNoise(const jobs::AdmmSharingConfig& s,
                                 int64_t rounds) {
  const bool paper_keys = s.paper_c != 0 || s.paper_b1 != 0 ||
                          s.paper_c1 != 0 || s.target_epsilon != 0 ||
                          s.target_delta != 0;
  const bool rigorous_keys =
      s.sigma != 0 || s.sensitivity != 0 || s.share_clip != 0;
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
                   "\"rigorous\" takes sigma, share_clip and optionally "
                   "target_delta (the paper's C, b1, c1, target_epsilon are "
                   "for \"paper\")");
      }
      if (!Positive(s.sigma)) return Bad("sigma", "must be finite and > 0");
      EDGEADMM_HOST_TRY(ValidateClip(s.share_clip, s.sensitivity, "share_clip",
                                     "sensitivity"));
      if (s.target_delta != 0 && !(s.target_delta > 0 && s.target_delta < 1)) {
        return Bad("target_delta", "must be in (0, 1)");
      }
      return host::Error::Ok();
    case jobs::SharingNoiseMode::kPaper:
      break;
  }
  if (rigorous_keys) {
    return Bad("noise",
               "\"paper\" takes no sigma, share_clip or sensitivity "
               "(sigma is planned from C and the target)");
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
                                       static_cast<uint64_t>(rounds));
  if (!plan.ok()) {
    return Bad("target_epsilon",
               "cannot be planned over job.rounds = " + std::to_string(rounds) +
                   ": " + plan.error().message());
  }
  return host::Error::Ok();
}

double ZcdpEpsilon(double rho_z, double delta) {
  return rho_z + 2 * std::sqrt(rho_z * std::log(1 / delta));
}

}  // namespace

double SharingLossWeight(const jobs::AdmmSharingConfig& config) {
  return config.records > 0 ? 1.0 / static_cast<double>(config.records) : 0.0;
}

namespace {
constexpr jobs::NameTable<jobs::SharingNoiseMode> kSharingNoise = {
    {"none", jobs::SharingNoiseMode::kNone},
    {"paper", jobs::SharingNoiseMode::kPaper},
    {"rigorous", jobs::SharingNoiseMode::kRigorous}};
constexpr jobs::NameTable<jobs::SharingScoreNoise> kSharingScoreNoise = {
    {"gaussian", jobs::SharingScoreNoise::kGaussian},
    {"exact", jobs::SharingScoreNoise::kExact}};
}  // namespace

void ReadAdmmSharingTable(jobs::ConfigReader& r, jobs::AdmmSharingConfig& c) {
  r.Int("admm_sharing.parties", c.parties, true);
  r.IntList("admm_sharing.columns", c.columns, true);
  r.Int("admm_sharing.records", c.records, true);
  r.Double("admm_sharing.rho", c.rho, true);
  r.Double("admm_sharing.lambda", c.lambda, true);
  r.String("admm_sharing.labels", c.labels, true);
  r.Enum("admm_sharing.noise", kSharingNoise, c.noise, true);
  r.Double("admm_sharing.sigma", c.sigma, false);
  r.Double("admm_sharing.sensitivity", c.sensitivity, false);
  r.Double("admm_sharing.share_clip", c.share_clip, false);
  r.Double("admm_sharing.paper_c", c.paper_c, false);
  r.Double("admm_sharing.paper_b1", c.paper_b1, false);
  r.Double("admm_sharing.paper_c1", c.paper_c1, false);
  r.Double("admm_sharing.target_epsilon", c.target_epsilon, false);
  r.Double("admm_sharing.target_delta", c.target_delta, false);
  r.Int("admm_sharing.barrier_retries", c.barrier_retries, false);
  r.String("admm_sharing.test_labels", c.test_labels, false);
  r.Int("admm_sharing.test_records", c.test_records, false);
  c.score_noise_given = r.Has("admm_sharing.score_noise");
  r.Enum("admm_sharing.score_noise", kSharingScoreNoise, c.score_noise, false);
  r.Double("admm_sharing.score_sigma", c.score_sigma, false);
  r.Double("admm_sharing.score_sensitivity", c.score_sensitivity, false);
  r.Double("admm_sharing.score_clip", c.score_clip, false);
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
  const auto limit = static_cast<int64_t>(wire::kMaxRecordDimension);
  if (s.records < 1 || s.records > limit) {
    return Bad("records",
               "must be in [1, " + std::to_string(limit) +
                   "]: the task's v and y and every party's share are "
                   "N-vectors, and this build's messages carry at most " +
                   std::to_string(limit) +
                   " values (EDGEADMM_CFG_MAX_RECORD_DIMENSION); got " +
                   std::to_string(s.records));
  }
  if (!Positive(s.rho)) return Bad("rho", "must be finite and > 0");
  if (!Positive(s.lambda)) return Bad("lambda", "must be finite and > 0");
  if (s.labels.empty()) {
    return Bad("labels", "give the gateway's label file (LIBSVM)");
  }
  if (s.barrier_retries < 0) return Bad("barrier_retries", "must be >= 0");
  EDGEADMM_HOST_TRY(ValidateSharingScore(s));
  return ValidateSharingNoise(s, config.rounds);
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
        p.sensitivity = SharingShareSensitivity(s);  // 2C, enforced
        p.delta = SharingDelta(config);
        double rho_z =
            t * p.sensitivity * p.sensitivity / (2 * s.sigma * s.sigma);
        // The scoring phase's Gaussian composes with the T shares (the
        // device charges both in one step); an exact score is uncovered.
        if (s.test_records > 0) {
          if (s.score_noise == jobs::SharingScoreNoise::kGaussian) {
            const double ds = SharingScoreSensitivity(s);
            rho_z += ds * ds / (2 * s.score_sigma * s.score_sigma);
          } else {
            rho_z = std::numeric_limits<double>::infinity();
          }
        }
        p.epsilon = ZcdpEpsilon(rho_z, p.delta);
        p.relation =
            "replace one record of the party's block, or the whole block: "
            "the device clips its share to L2 norm share_clip, so a share "
            "moves by at most 2 * share_clip (derived, enforced)";
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
        p.score_sensitivity = SharingScoreSensitivity(s);
        p.score_epsilon =
            ZcdpEpsilon(p.score_sensitivity * p.score_sensitivity /
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

}  // namespace edgeadmm::algorithms
