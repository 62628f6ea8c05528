#include "edgeadmm/rounds/pld_round_accountant.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/privacy/gaussian_mechanism.h"

namespace edgeadmm::rounds {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Curves are sums of per-round curves in double: equal up to round-off.
constexpr double kTolerance = 1e-9;

}  // namespace

PldRoundAccountant::PldRoundAccountant(const RoundAccountant& rdp,
                                       RoundMechanism subsampled,
                                       privacy::PldOptions options)
    : rdp_(&rdp), subsampled_(subsampled), options_(options) {
  if (subsampled.sampling_rate > 0 && subsampled.sampling_rate < 1 &&
      subsampled.noise_multiplier > 0) {
    subsampled_rdp_ = rdp.RoundRdp(subsampled);
  }
}

double PldRoundAccountant::ScheduleEpsilon(const std::vector<double>& rdp,
                                           double delta) const {
  const std::vector<double>& alpha = orders();
  if (rdp.empty() || rdp.size() != alpha.size()) return kInf;
  for (double v : rdp) {
    if (!std::isfinite(v) || v < 0) return kInf;
  }
  // A sum of Gaussian rounds: ε_α / α is the same at every order. The
  // largest ratio is used (rounding up).
  double lo = kInf, hi = 0;
  for (size_t i = 0; i < rdp.size(); ++i) {
    lo = std::min(lo, rdp[i] / alpha[i]);
    hi = std::max(hi, rdp[i] / alpha[i]);
  }
  if (hi == 0) return 0;  // nothing charged
  if (lo >= hi * (1 - kTolerance)) {
    // ε_α = α μ²/2 = α / (2 z²): one Gaussian with z = 1/μ.
    auto eps = privacy::GaussianEpsilon(1.0 / std::sqrt(2.0 * hi), delta);
    return eps.ok() ? *eps : kInf;
  }
  // k rounds of the job's subsampled Gaussian.
  if (subsampled_rdp_.empty() || !(subsampled_rdp_[0] > 0)) return kInf;
  const double k = std::round(rdp[0] / subsampled_rdp_[0]);
  if (!(k >= 1) || k > 1e9) return kInf;
  for (size_t i = 0; i < rdp.size(); ++i) {
    if (std::fabs(rdp[i] - k * subsampled_rdp_[i]) > kTolerance * rdp[i]) {
      return kInf;
    }
  }
  privacy::PldAccountant pld(options_);
  if (!pld.Compose(subsampled_.sampling_rate, subsampled_.noise_multiplier,
                   static_cast<uint64_t>(k))
           .ok()) {
    return kInf;
  }
  auto eps = pld.Epsilon(delta);
  return eps.ok() ? *eps : kInf;
}

double PldRoundAccountant::Epsilon(const std::vector<double>& rdp,
                                   double delta) const {
  const double eps =
      std::min(rdp_->Epsilon(rdp, delta), ScheduleEpsilon(rdp, delta));
  // The sampler-tails cap (docs/privacy.md), as the RDP accountant applies.
  return eps <= DevicePrivacyLedger::kMaxReportableEpsilon ? eps : kInf;
}

}  // namespace edgeadmm::rounds
