#include "edgeadmm/privacy/privacy_loss_distribution.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "checks.h"
#include "edgeadmm/privacy/fft_convolution.h"

namespace edgeadmm::privacy {

host::Error CheckPldBins(const char* what, double bins) {
  if (!(bins <= static_cast<double>(kMaxPldBins))) {
    return host::Error::OutOfRange(
        std::string(what) + " needs " + std::to_string(bins) +
        " grid points, more than " + std::to_string(kMaxPldBins) +
        " (epsilon is very large for this schedule; use a coarser step or "
        "the RDP accountant)");
  }
  return host::Error::Ok();
}

host::ErrorOr<PrivacyLossDistribution> PrivacyLossDistribution::Create(
    double step, int64_t min_index, std::vector<double> pmf,
    double infinity_mass) {
  EDGEADMM_HOST_TRY(internal::CheckPositive("PLD step", step));
  if (pmf.empty()) return host::Error::InvalidArgument("PLD pmf is empty");
  for (double p : pmf) {
    if (!(p >= 0.0) || !std::isfinite(p)) {
      return host::Error::InvalidArgument(
          internal::Describe("PLD mass", "finite and >= 0", p));
    }
  }
  if (!(infinity_mass >= 0.0 && infinity_mass <= 1.0)) {
    return host::Error::InvalidArgument(
        internal::Describe("PLD mass at infinity", "in [0, 1]", infinity_mass));
  }
  return PrivacyLossDistribution(step, min_index, std::move(pmf),
                                 infinity_mass);
}

void PrivacyLossDistribution::TruncateTails(double tail_mass) {
  size_t lo = 0;
  double low_mass = 0.0;
  while (lo + 1 < pmf_.size() && low_mass + pmf_[lo] <= tail_mass) {
    low_mass += pmf_[lo++];
  }
  size_t hi = pmf_.size();
  double high_mass = 0.0;
  while (hi > lo + 1 && high_mass + pmf_[hi - 1] <= tail_mass) {
    high_mass += pmf_[--hi];
  }
  if (lo == 0 && hi == pmf_.size()) return;
  std::vector<double> kept(pmf_.begin() + static_cast<ptrdiff_t>(lo),
                           pmf_.begin() + static_cast<ptrdiff_t>(hi));
  kept.front() += low_mass;  // lower tail rounded up: pessimistic
  pmf_ = std::move(kept);
  min_index_ += static_cast<int64_t>(lo);
  infinity_mass_ = std::min(1.0, infinity_mass_ + high_mass);
}

namespace {

// The Chernoff parameters tried (per loss index): 1e-6 * 1.5^j up to 10.
constexpr size_t kChernoffTs = 40;

std::array<double, kChernoffTs> ChernoffTs() {
  std::array<double, kChernoffTs> ts{};
  double t = 1e-6;
  for (double& x : ts) {
    x = t;
    t *= 1.5;
  }
  return ts;
}

// Adds weight * log M(t) and weight * log M(-t) for every t in `ts` to `up`
// and `down`, where log M(t) = log sum_i p_i e^{t (m + i)} (m = min_index).
// Horner's rule on e^{-t} from the end of lower weight, all t in one pass
// over the pmf: the terms are >= 0, so each sum has a relative round-off of
// about 2 pmf.size() ulps and cannot overflow.
void AddLogMgfs(const std::vector<double>& pmf, int64_t min_index,
                double weight, const std::array<double, kChernoffTs>& ts,
                std::array<double, kChernoffTs>* up,
                std::array<double, kChernoffTs>* down) {
  std::array<double, kChernoffTs> shrink{}, above{}, below{};
  for (size_t j = 0; j < kChernoffTs; ++j) shrink[j] = std::exp(-ts[j]);
  for (double p : pmf) {  // above[j] = sum_i p_i e^{t_j (i - top)}
    for (size_t j = 0; j < kChernoffTs; ++j) {
      above[j] = above[j] * shrink[j] + p;
    }
  }
  for (size_t i = pmf.size(); i-- > 0;) {  // below[j] = sum_i p_i e^{-t_j i}
    for (size_t j = 0; j < kChernoffTs; ++j) {
      below[j] = below[j] * shrink[j] + pmf[i];
    }
  }
  const double top =
      static_cast<double>(min_index + static_cast<int64_t>(pmf.size()) - 1);
  for (size_t j = 0; j < kChernoffTs; ++j) {
    (*up)[j] += weight * (std::log(above[j]) + ts[j] * top);
    (*down)[j] += weight * (std::log(below[j]) -
                            ts[j] * static_cast<double>(min_index));
  }
}

// The window [lo, hi] (composed loss indices, within [lowest, highest]) with
// composed mass <= tail_mass above and below it, by Chernoff:
// P(S >= u) <= exp(log M_S(t) - t u), P(S <= l) <= exp(log M_S(-t) + t l),
// log M_S = sum_j count_j log M_j, minimised over the t of ChernoffTs.
std::pair<int64_t, int64_t> ChernoffWindow(const std::vector<PldPower>& factors,
                                           int64_t lowest, int64_t highest,
                                           double tail_mass) {
  static const std::array<double, kChernoffTs> ts = ChernoffTs();
  std::array<double, kChernoffTs> up{}, down{};
  for (const PldPower& f : factors) {
    AddLogMgfs(f.pld->pmf(), f.pld->min_index(), static_cast<double>(f.count),
               ts, &up, &down);
  }
  const double log_tail = std::log(tail_mass);
  double upper = static_cast<double>(highest);
  double lower = static_cast<double>(lowest);
  for (size_t j = 0; j < kChernoffTs; ++j) {
    upper = std::min(upper, (up[j] - log_tail) / ts[j]);
    lower = std::max(lower, (log_tail - down[j]) / ts[j]);
  }
  // Clamped before rounding: an all-zero pmf gives infinite bounds.
  const int64_t lo = static_cast<int64_t>(std::floor(std::clamp(
      lower, static_cast<double>(lowest), static_cast<double>(highest))));
  const int64_t hi = static_cast<int64_t>(std::ceil(std::clamp(
      upper, static_cast<double>(lowest), static_cast<double>(highest))));
  return {lo, std::max(lo, hi)};
}

}  // namespace

host::ErrorOr<PrivacyLossDistribution> PrivacyLossDistribution::Compose(
    const std::vector<PldPower>& factors, double tail_mass) {
  if (factors.empty()) {
    return host::Error::InvalidArgument("nothing to compose");
  }
  int64_t lowest = 0, highest = 0;
  double log_finite = 0.0;  // log P(no factor at +infinity)
  for (const PldPower& f : factors) {
    if (f.count == 0) {
      return host::Error::InvalidArgument("cannot compose a PLD 0 times");
    }
    if (f.pld->step_ != factors.front().pld->step_) {
      return host::Error::InvalidArgument(
          "PLDs on different grids cannot be composed");
    }
    const int64_t n = static_cast<int64_t>(f.count);
    lowest += f.pld->min_index_ * n;
    highest +=
        (f.pld->min_index_ + static_cast<int64_t>(f.pld->pmf_.size()) - 1) * n;
    log_finite +=
        static_cast<double>(f.count) * std::log1p(-f.pld->infinity_mass_);
  }
  if (factors.size() == 1 && factors.front().count == 1) {
    return *factors.front().pld;
  }
  const auto [window_lo, window_hi] =
      ChernoffWindow(factors, lowest, highest, tail_mass);
  EDGEADMM_HOST_TRY(CheckPldBins(
      "PLD composition", static_cast<double>(window_hi - window_lo + 1)));
  // At least 4 bins: KISS FFT fails on a transform of length 1.
  const size_t size = NextPowerOfTwo(
      std::max<size_t>(4, static_cast<size_t>(window_hi - window_lo + 1)));
  std::vector<CyclicFactor> cyclic_factors;
  for (const PldPower& f : factors) {
    cyclic_factors.push_back({&f.pld->pmf_, f.pld->min_index_, f.count});
  }
  // Composed index s is stored at s mod size; rotate so that bin i holds
  // s = window_lo + i.
  std::vector<double> pmf = CyclicConvolutionOfPowers(cyclic_factors, size);
  const int64_t sz = static_cast<int64_t>(size);
  std::rotate(pmf.begin(), pmf.begin() + ((window_lo % sz) + sz) % sz,
              pmf.end());
  // Mass above the stored bins (<= tail_mass when there is any) wrapped to
  // lower losses: charge its bound at +infinity.
  const double cut = window_lo + sz - 1 < highest ? tail_mass : 0.0;
  // The bins above window_hi (padding to a power of two) hold at most
  // tail_mass plus FFT round-off: moved to +infinity, so that round-off
  // does not widen the support of later compositions.
  const size_t kept = static_cast<size_t>(window_hi - window_lo + 1);
  double padding = 0.0;
  for (size_t i = kept; i < size; ++i) padding += pmf[i];
  pmf.resize(kept);
  PrivacyLossDistribution out(
      factors.front().pld->step_, window_lo, std::move(pmf),
      std::min(1.0, -std::expm1(log_finite) + cut + padding));
  out.TruncateTails(tail_mass);
  return out;
}

double PrivacyLossDistribution::Delta(double epsilon) const {
  double delta = infinity_mass_;
  for (size_t i = pmf_.size(); i-- > 0;) {
    const double loss =
        step_ * static_cast<double>(min_index_ + static_cast<int64_t>(i));
    if (loss <= epsilon) break;
    delta += pmf_[i] * -std::expm1(epsilon - loss);
  }
  return std::min(delta, 1.0);
}

host::ErrorOr<double> PrivacyLossDistribution::Epsilon(double delta) const {
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", delta));
  if (infinity_mass_ >= delta) return INFINITY;
  // Scan down from the top bin k: A = p_inf + sum_{j>=k} p_j and
  // B = sum_{j>=k} p_j e^{loss_k - loss_j}; on [loss_{k-1}, loss_k],
  // delta(eps) = A - e^{eps - loss_k} B.
  const double shrink = std::exp(-step_);
  double a = infinity_mass_;
  double b = 0.0;
  for (size_t i = pmf_.size(); i-- > 0;) {
    a += pmf_[i];
    b = b * shrink + pmf_[i];
    const double loss_k =
        step_ * static_cast<double>(min_index_ + static_cast<int64_t>(i));
    const double at_previous = a - shrink * b;  // delta(loss_{k-1})
    if (at_previous > delta || i == 0) {
      if (b <= 0.0 || a <= delta) return 0.0;  // delta(eps) <= a everywhere
      return std::max(0.0, loss_k + std::log((a - delta) / b));
    }
  }
  return 0.0;
}

}  // namespace edgeadmm::privacy
