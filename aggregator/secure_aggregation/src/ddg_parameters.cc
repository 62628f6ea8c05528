// The distributed discrete Gaussian's b, gamma and sigma (see
// ddg_parameters.h).
#include "edgeadmm/secure_aggregation/ddg_parameters.h"

#include <cmath>

#include "edgeadmm/privacy/calibration.h"
#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secure_aggregation/ddg_choice_cache.h"

namespace edgeadmm::secure_aggregation {
namespace {

constexpr double kMaxSigmaGrid = 1099511627776.0;  // 2^40
constexpr int kBisections = 30;
// Goals whose choice is remembered: the jobs one gateway runs at once.
constexpr size_t kCachedChoices = 16;

host::Error CheckGoal(const DdgGoal& g) {
  const bool ok =
      g.cohort > 0 && uint64_t{g.colluders} + g.dropouts < g.cohort &&
      g.dimension > 0 && DdgPaddedDimension(g.dimension) != 0 && g.clip > 0 &&
      std::isfinite(g.clip) && g.epsilon > 0 && std::isfinite(g.epsilon) &&
      g.delta > 0 && g.delta < 1 && g.rounds > 0 && g.max_bits >= 1 &&
      g.max_bits <= 32 && g.beta >= 0 && g.beta < 1 && g.log2_wrap < 0 &&
      g.mse_slack >= 0;
  if (!ok) {
    return host::Error::InvalidArgument(
        "distributed discrete Gaussian goal: need n > t + D, d >= 1, C, "
        "epsilon > 0, 0 < delta < 1, rounds >= 1, 1 <= max_bits <= 32, "
        "0 <= beta < 1, log2_wrap < 0, mse_slack >= 0");
  }
  return host::Error::Ok();
}

double Beta(const DdgGoal& g) {
  return g.beta > 0 ? g.beta : 1.0 / (8.0 * g.cohort);
}

// log2 of 2 d' (1 - beta)^(-n) exp(-m^2/(2v)) (the header's wrap bound).
double Log2Wrap(const DdgGoal& g, uint32_t bits, double gamma,
                double sigma_grid) {
  const double n = g.cohort;
  const double d = static_cast<double>(DdgPaddedDimension(g.dimension));
  const double c = g.clip / gamma;
  const double v = n * n * c * c / d + n / 4.0 + n * sigma_grid * sigma_grid;
  const double m = std::ldexp(1.0, static_cast<int>(bits) - 1);
  const double ln =
      std::log(2.0 * d) - n * std::log1p(-Beta(g)) - m * m / (2.0 * v);
  return ln / std::log(2.0);
}

// The epsilon of the goal's rounds at (gamma, sigma_grid).
host::ErrorOr<double> Epsilon(const DdgGoal& g, double gamma,
                              double sigma_grid) {
  EDGEADMM_HOST_TRY_ASSIGN(const DdgParameters p,
                           EvaluateDdg(g, g.max_bits, gamma, sigma_grid));
  return p.epsilon;
}

// A lower bound on sigma_g: the bound is never below the continuous
// Gaussian's alpha s^2/2 with s = D2/(sqrt(n_h) sigma_g), so sigma_g is at
// least the Gaussian's calibrated multiplier times D2/sqrt(n_h). Starting
// there keeps the search off the small sigmas where tau is large (and the
// bound's minimum over n' has the most counts to search).
host::ErrorOr<double> SigmaFloor(const DdgGoal& g, double gamma) {
  privacy::Schedule schedule;
  schedule.kind = privacy::MechanismKind::kGaussian;
  schedule.neighbouring = privacy::Neighbouring::kZeroOut;
  schedule.rounds = g.rounds;
  privacy::Target target;
  target.epsilon = g.epsilon;
  target.delta = g.delta;
  target.conversion = g.conversion;
  const auto z = privacy::CalibrateNoiseMultiplier(schedule, target);
  if (!z.ok()) return 0.5;  // outside the calibration's range: no floor
  const double norm_bound = DdgRoundedNormBound(
      g.clip / gamma, DdgPaddedDimension(g.dimension), Beta(g));
  const double floor =
      z->noise_multiplier * norm_bound /
      std::sqrt(static_cast<double>(g.cohort - g.dropouts - g.colluders));
  return std::fmax(0.5, floor * (1 - 1e-6));  // calibrated to 1e-6
}

// The smallest sigma_g >= 1/2 with epsilon <= target at this gamma (to
// 2^-30 relative, rounded up).
host::ErrorOr<double> SigmaFor(const DdgGoal& g, double gamma) {
  EDGEADMM_HOST_TRY_ASSIGN(double lo, SigmaFloor(g, gamma));
  EDGEADMM_HOST_TRY_ASSIGN(double eps, Epsilon(g, gamma, lo));
  if (eps <= g.epsilon) return lo;
  double hi = 2 * lo;
  while (true) {
    EDGEADMM_HOST_TRY_ASSIGN(eps, Epsilon(g, gamma, hi));
    if (eps <= g.epsilon) break;
    lo = hi;
    hi *= 2;
    if (hi > kMaxSigmaGrid) {
      return host::Error::OutOfRange(
          "no sigma below 2^40 grid steps meets the target epsilon");
    }
  }
  for (int i = 0; i < kBisections; ++i) {  // epsilon(hi) <= target < (lo)
    const double mid = std::sqrt(lo * hi);
    EDGEADMM_HOST_TRY_ASSIGN(eps, Epsilon(g, gamma, mid));
    (eps <= g.epsilon ? hi : lo) = mid;
  }
  return hi;
}

// The smallest gamma (to 2^-20 relative) whose wrap bound meets the goal
// at `bits`, with its sigma; OUT_OF_RANGE when gamma up to 2^30 C fails.
host::ErrorOr<DdgParameters> ForBits(const DdgGoal& g, uint32_t bits) {
  auto fits = [&](double gamma, bool& ok) -> host::Error {
    EDGEADMM_HOST_TRY_ASSIGN(const double sigma, SigmaFor(g, gamma));
    ok = Log2Wrap(g, bits, gamma, sigma) <= g.log2_wrap;
    return host::Error::Ok();
  };
  double hi = g.clip;
  bool ok = false;
  EDGEADMM_HOST_TRY(fits(hi, ok));
  for (int i = 0; !ok; ++i) {
    if (i == 30) {
      return host::Error::OutOfRange("no grid step meets the wrap goal with " +
                                     std::to_string(bits) + " bits");
    }
    hi *= 2;
    EDGEADMM_HOST_TRY(fits(hi, ok));
  }
  double lo = hi / 2;
  EDGEADMM_HOST_TRY(fits(lo, ok));
  for (int i = 0; ok && i < 60; ++i) {
    hi = lo;
    lo /= 2;
    EDGEADMM_HOST_TRY(fits(lo, ok));
  }
  for (int i = 0; i < 20; ++i) {  // hi fits, lo does not
    const double mid = std::sqrt(lo * hi);
    EDGEADMM_HOST_TRY(fits(mid, ok));
    (ok ? hi : lo) = mid;
  }
  EDGEADMM_HOST_TRY_ASSIGN(const double sigma, SigmaFor(g, hi));
  return EvaluateDdg(g, bits, hi, sigma);
}

// The choice (ddg_parameters.h) for a checked goal.
host::ErrorOr<DdgParameters> Choose(const DdgGoal& goal) {
  EDGEADMM_HOST_TRY_ASSIGN(DdgParameters best, ForBits(goal, goal.max_bits));
  const double limit = best.predicted_mse * (1 + goal.mse_slack);
  // The MSE does not grow with b: bisect for the fewest bits within limit.
  uint32_t lo = 0;  // fails (or is no width)
  uint32_t hi = goal.max_bits;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    const auto p = ForBits(goal, mid);
    if (p.ok() && p->predicted_mse <= limit) {
      hi = mid;
      best = *p;
    } else if (!p.ok() && p.status().code() != StatusCode::kOutOfRange) {
      return p.error();
    } else {
      lo = mid;
    }
  }
  return best;
}

}  // namespace

privacy::Mechanism DdgRoundMechanism(const DdgParameters& p) {
  privacy::Mechanism m;
  m.kind = privacy::MechanismKind::kDistributedDiscreteGaussian;
  m.neighbouring = privacy::Neighbouring::kZeroOut;
  m.sensitivity = p.norm_bound;
  m.l1_sensitivity = p.l1_bound;
  m.noise_std = std::sqrt(static_cast<double>(p.honest_devices)) * p.sigma_grid;
  m.devices = p.honest_devices;
  m.dimension = p.padded_dimension;
  return m;
}

host::ErrorOr<DdgParameters> EvaluateDdg(const DdgGoal& g, uint32_t bits,
                                         double gamma, double sigma_grid) {
  EDGEADMM_HOST_TRY(CheckGoal(g));
  if (bits < 1 || bits > 32 || !(gamma > 0) || !std::isfinite(gamma) ||
      !(sigma_grid >= 0.5) || !std::isfinite(sigma_grid)) {
    return host::Error::InvalidArgument(
        "need 1 <= bits <= 32, gamma > 0 and sigma_grid >= 1/2");
  }
  DdgParameters p;
  p.bits = bits;
  p.gamma = gamma;
  p.sigma_grid = sigma_grid;
  p.sigma = sigma_grid * gamma;
  p.beta = Beta(g);
  p.padded_dimension = DdgPaddedDimension(g.dimension);
  const double d = static_cast<double>(p.padded_dimension);
  p.norm_bound =
      DdgRoundedNormBound(g.clip / gamma, p.padded_dimension, p.beta);
  if (!(p.norm_bound > 0) || !(p.norm_bound < 2147483648.0)) {
    return host::Error::InvalidArgument(
        "the grid step makes the rounded norm bound unusable");
  }
  p.l1_bound =
      std::fmin(p.norm_bound * p.norm_bound, std::sqrt(d) * p.norm_bound);
  p.honest_devices = g.cohort - g.dropouts - g.colluders;
  privacy::Accountant accountant;
  EDGEADMM_HOST_TRY(accountant.Compose(DdgRoundMechanism(p), g.rounds));
  EDGEADMM_HOST_TRY_ASSIGN(const privacy::EpsilonReport report,
                           accountant.Epsilon(g.delta, g.conversion));
  p.epsilon = report.epsilon;
  p.log2_wrap = Log2Wrap(g, bits, gamma, sigma_grid);
  p.predicted_mse =
      g.cohort * d * gamma * gamma * (0.25 + sigma_grid * sigma_grid);
  return p;
}

host::ErrorOr<DdgRoundPlan> PlanFromDdgParameters(const DdgParameters& p,
                                                  const DdgGoal& goal) {
  DdgRoundPlan plan;
  plan.bits = p.bits;
  plan.gamma = p.gamma;
  plan.sigma2_den = p.sigma_grid <= 1000 ? 1024 : 1;
  const double num =
      std::ceil(p.sigma_grid * p.sigma_grid * double(plan.sigma2_den));
  plan.sigma2_num = num < 1.8e19 ? static_cast<uint64_t>(num) : 0;
  plan.beta = p.beta;
  plan.dimension = goal.dimension;
  plan.clip = goal.clip;
  if (!ValidateDdgRoundPlan(plan).ok()) {
    return host::Error::InvalidArgument(
        "the parameters give no plan a device can run");
  }
  return plan;
}

host::ErrorOr<DdgParameters> ChooseDdgParameters(const DdgGoal& goal) {
  EDGEADMM_HOST_TRY(CheckGoal(goal));
  static DdgChoiceCache cache(kCachedChoices);
  if (auto cached = cache.Find(goal)) return *cached;
  EDGEADMM_HOST_TRY_ASSIGN(const DdgParameters chosen, Choose(goal));
  cache.Insert(goal, chosen);
  return chosen;
}

}  // namespace edgeadmm::secure_aggregation
