#include "edgeadmm/device_privacy_ledger.h"

#include <cmath>
#include <limits>

namespace edgeadmm {
namespace {

bool IsPositiveFinite(double x) { return x > 0 && std::isfinite(x); }
bool IsValidDelta(double delta) { return delta > 0 && delta < 1; }

// Above the cap the sampler's floor is no longer negligible (header).
bool IsReportable(double epsilon) {
  return epsilon <= DevicePrivacyLedger::kMaxReportableEpsilon;
}

}  // namespace

const double DevicePrivacyLedger::kOrders[kOrderCount] = {
    1.1, 1.25, 1.5, 1.75, 2,  3,  4,  5,  6,  7,  8,  9,   10, 11,
    12,  13,   14,  15,   16, 17, 18, 19, 20, 21, 22, 23,  24, 25,
    26,  27,   28,  29,   30, 31, 32, 33, 34, 35, 36, 37,  38, 39,
    40,  41,   42,  43,   44, 45, 46, 47, 48, 49, 50, 51,  52, 53,
    54,  55,   56,  57,   58, 59, 60, 61, 62, 63, 64, 128, 256};

Status DevicePrivacyLedger::Charge(double sensitivity, double noise_std) {
  if (!IsPositiveFinite(sensitivity) || !IsPositiveFinite(noise_std)) {
    return Status::InvalidArgument();
  }
  if (participations_ == UINT32_MAX) return Status::OutOfRange();
  // Gaussian mechanism: RDP(α) = α·Δ²/(2s²) (Mironov 2017, Prop. 7).
  const double ratio = sensitivity / noise_std;
  const double per_order = ratio * ratio / 2;
  if (!std::isfinite(per_order) ||
      !std::isfinite(rdp_[kOrderCount - 1] +
                     kOrders[kOrderCount - 1] * per_order)) {
    return Status::InvalidArgument();
  }
  for (size_t i = 0; i < kOrderCount; ++i) {
    rdp_[i] = rdp_[i] + kOrders[i] * per_order;
  }
  ++participations_;
  return Status::Ok();
}

Status DevicePrivacyLedger::Compose(const DevicePrivacyLedger& other) {
  if (other.participations_ > UINT32_MAX - participations_) {
    return Status::OutOfRange();
  }
  // Orders ascend and so do the sums: the largest order overflows first.
  if (!std::isfinite(rdp_[kOrderCount - 1] + other.rdp_[kOrderCount - 1])) {
    return Status::InvalidArgument();
  }
  for (size_t i = 0; i < kOrderCount; ++i) rdp_[i] = rdp_[i] + other.rdp_[i];
  participations_ += other.participations_;
  return Status::Ok();
}

double DevicePrivacyLedger::EpsilonWithExtra(double extra_per_order,
                                             double delta) const {
  // Improved conversion (Canonne, Kamath, Steinke 2020, Prop. 12),
  // minimised over the grid.
  const double log_delta = std::log(delta);
  double best = HUGE_VAL;  // +infinity, a double
  for (size_t i = 0; i < kOrderCount; ++i) {
    const double alpha = kOrders[i];
    const double epsilon = (rdp_[i] + alpha * extra_per_order) +
                           std::log1p(-1 / alpha) -
                           (log_delta + std::log(alpha)) / (alpha - 1);
    if (epsilon < best) best = epsilon;
  }
  return best;
}

Result<double> DevicePrivacyLedger::Epsilon(double delta) const {
  if (!IsValidDelta(delta)) return Status::InvalidArgument();
  if (participations_ == 0) return double{0};
  const double epsilon = EpsilonWithExtra(0, delta);
  return IsReportable(epsilon) ? epsilon
                               : std::numeric_limits<double>::infinity();
}

Result<bool> DevicePrivacyLedger::WouldExceed(double sensitivity,
                                              double noise_std,
                                              double epsilon_budget,
                                              double delta) const {
  if (!IsPositiveFinite(sensitivity) || !IsPositiveFinite(noise_std) ||
      !IsValidDelta(delta) || !(epsilon_budget >= 0)) {
    return Status::InvalidArgument();
  }
  const double ratio = sensitivity / noise_std;
  const double per_order = ratio * ratio / 2;
  // Same arithmetic as Charge followed by Epsilon, so the answer flips
  // exactly at the ε that charge would produce.
  // Above the cap ε counts as +inf: it exceeds every finite budget, and
  // only a budget of +inf (no guarantee asked for) accepts the round.
  const double epsilon = EpsilonWithExtra(per_order, delta);
  const double capped =
      IsReportable(epsilon) ? epsilon : std::numeric_limits<double>::infinity();
  return capped > epsilon_budget;
}

Status DevicePrivacyLedger::Restore(uint32_t participations,
                                    Span<const double> rdp) {
  if (rdp.size() != kOrderCount) return Status::InvalidArgument();
  double previous = 0;
  for (const double value : rdp) {
    if (!std::isfinite(value) || value < previous) {
      return Status::InvalidArgument();
    }
    if (participations == 0 && value != 0) return Status::InvalidArgument();
    previous = value;
  }
  for (size_t i = 0; i < kOrderCount; ++i) rdp_[i] = rdp[i];
  participations_ = participations;
  return Status::Ok();
}

}  // namespace edgeadmm
