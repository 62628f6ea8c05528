#include "edgeadmm/privacy/privacy_loss_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

host::ErrorOr<PrivacyLossDistribution> PrivacyLossDistribution::Compose(
    const PrivacyLossDistribution& other, double tail_mass) const {
  if (other.step_ != step_) {
    return host::Error::InvalidArgument(
        "PLDs on different grids cannot be composed");
  }
  EDGEADMM_HOST_TRY(CheckPldBins("PLD composition",
                                 static_cast<double>(pmf_.size()) +
                                     static_cast<double>(other.pmf_.size())));
  PrivacyLossDistribution out(
      step_, min_index_ + other.min_index_, ConvolveLinear(pmf_, other.pmf_),
      1.0 - (1.0 - infinity_mass_) * (1.0 - other.infinity_mass_));
  out.TruncateTails(tail_mass);
  return out;
}

namespace {

// log sum_i p_i e^{t (m + i)} over positive masses (t times the loss index).
double LogMgf(const std::vector<double>& pmf, int64_t min_index, double t) {
  double best = -INFINITY;
  for (size_t i = 0; i < pmf.size(); ++i) {
    if (pmf[i] > 0.0) {
      best = std::max(best, std::log(pmf[i]) +
                                t * static_cast<double>(
                                        min_index + static_cast<int64_t>(i)));
    }
  }
  if (best == -INFINITY) return best;
  double sum = 0.0;
  for (size_t i = 0; i < pmf.size(); ++i) {
    if (pmf[i] > 0.0) {
      sum += std::exp(
          std::log(pmf[i]) +
          t * static_cast<double>(min_index + static_cast<int64_t>(i)) - best);
    }
  }
  return best + std::log(sum);
}

}  // namespace

host::ErrorOr<PrivacyLossDistribution> PrivacyLossDistribution::SelfCompose(
    uint64_t count, double tail_mass) const {
  if (count == 0) {
    return host::Error::InvalidArgument("cannot compose a PLD 0 times");
  }
  if (count == 1) return *this;
  const double n = static_cast<double>(count);
  const int64_t lowest = min_index_ * static_cast<int64_t>(count);
  const int64_t highest = (min_index_ + static_cast<int64_t>(pmf_.size()) - 1) *
                          static_cast<int64_t>(count);
  // Chernoff: P(S >= u) <= exp(n log M(t) - t u), P(S <= l) <= exp(n log
  // M(-t) + t l), in index units, minimised over a geometric set of t.
  const double log_tail = std::log(tail_mass);
  double upper = static_cast<double>(highest);
  double lower = static_cast<double>(lowest);
  for (double t = 1e-6; t <= 10.0; t *= 1.5) {
    const double up = LogMgf(pmf_, min_index_, t);
    const double down = LogMgf(pmf_, min_index_, -t);
    upper = std::min(upper, (n * up - log_tail) / t);
    lower = std::max(lower, (log_tail - n * down) / t);
  }
  const int64_t window_lo =
      std::max(lowest, static_cast<int64_t>(std::floor(lower)));
  const int64_t window_hi =
      std::min(highest, static_cast<int64_t>(std::ceil(upper)));
  EDGEADMM_HOST_TRY(CheckPldBins(
      "PLD self-composition", static_cast<double>(window_hi - window_lo + 1)));
  const size_t size =
      NextPowerOfTwo(static_cast<size_t>(window_hi - window_lo + 1));
  // Composed index s is stored at s mod size; read back s in
  // [window_lo, window_lo + size).
  std::vector<double> cyclic =
      CyclicSelfConvolutionPower(pmf_, min_index_, size, count);
  std::vector<double> pmf(size);
  const int64_t sz = static_cast<int64_t>(size);
  for (int64_t s = window_lo; s < window_lo + sz; ++s) {
    pmf[static_cast<size_t>(s - window_lo)] =
        cyclic[static_cast<size_t>(((s % sz) + sz) % sz)];
  }
  // Mass above the window (<= tail_mass when it was cut) wrapped to lower
  // losses: charge its bound at +infinity.
  const double cut = window_lo + sz - 1 < highest ? tail_mass : 0.0;
  const double inf =
      -std::expm1(n * std::log1p(-infinity_mass_)) + cut;  // 1 - (1-p)^n
  PrivacyLossDistribution out(step_, window_lo, std::move(pmf),
                              std::min(1.0, inf));
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
