#include "edgeadmm/privacy/pld_accountant.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "checks.h"
#include "edgeadmm/privacy/subsampled_gaussian_pld.h"

namespace edgeadmm::privacy {

const char* PldReference() {
  return "PLD (Koskela-Jalko-Honkela 2020; Koskela et al. 2021), "
         "connect-the-dots discretisation (Doroshenko et al. 2022), FFT "
         "composition, both add/remove directions";
}

PldAccountant::PldAccountant(PldOptions options)
    : options_(options), answer_step_(options.step) {}

host::Error PldAccountant::Compose(double q, double nu, uint64_t count) {
  EDGEADMM_HOST_TRY(internal::CheckRate("q", q));
  EDGEADMM_HOST_TRY(internal::CheckPositive("noise multiplier", nu));
  if (count == 0) {
    return host::Error::InvalidArgument("count must be >= 1");
  }
  counts_[{q, nu}] += count;
  compositions_ += count;
  composed_[0].clear();
  composed_[1].clear();
  return host::Error::Ok();
}

host::ErrorOr<const PrivacyLossDistribution*> PldAccountant::Composed(
    bool remove, double step) const {
  std::unique_ptr<PrivacyLossDistribution>& slot =
      composed_[remove ? 0 : 1][step];
  if (slot) return slot.get();
  const PldDirection direction =
      remove ? PldDirection::kRemove : PldDirection::kAdd;
  if (counts_.empty()) {
    // Nothing composed: the point mass at loss 0 (delta(eps) = 0, eps >= 0).
    EDGEADMM_HOST_TRY_ASSIGN(
        PrivacyLossDistribution none,
        PrivacyLossDistribution::Create(step, 0, {1.0}, 0.0));
    slot = std::make_unique<PrivacyLossDistribution>(std::move(none));
    return slot.get();
  }
  // At most kBatch one-release PLDs are held at a time: each batch is
  // composed in one FFT together with the running total (one more factor,
  // one more pessimistic tail cut per batch).
  constexpr size_t kBatch = 64;
  std::optional<PrivacyLossDistribution> total;
  std::vector<PrivacyLossDistribution> singles;
  std::vector<PldPower> factors;
  for (auto next = counts_.begin(); next != counts_.end();) {
    singles.clear();
    factors.clear();
    for (; next != counts_.end() && singles.size() < kBatch; ++next) {
      EDGEADMM_HOST_TRY_ASSIGN(
          PrivacyLossDistribution one,
          SubsampledGaussianPld(next->first.first, next->first.second,
                                direction, step, options_.tail_mass));
      singles.push_back(std::move(one));
      factors.push_back({nullptr, next->second});
    }
    for (size_t i = 0; i < singles.size(); ++i) factors[i].pld = &singles[i];
    if (total) factors.push_back({&*total, 1});
    EDGEADMM_HOST_TRY_ASSIGN(
        PrivacyLossDistribution composed,
        PrivacyLossDistribution::Compose(factors, options_.tail_mass));
    total = std::move(composed);
  }
  slot = std::make_unique<PrivacyLossDistribution>(std::move(*total));
  return slot.get();
}

double PldAccountant::RefinedStep(double epsilon) const {
  if (!(epsilon > 0.0) || !std::isfinite(epsilon) || compositions_ == 0) {
    return options_.step;
  }
  const double wanted =
      epsilon / (50.0 * std::sqrt(static_cast<double>(compositions_)));
  return std::clamp(wanted, options_.step * options_.min_step_fraction,
                    options_.step);
}

host::ErrorOr<double> PldAccountant::WorstOnGrid(Query query, double x,
                                                 double step) const {
  double worst = 0.0;
  for (bool remove : {true, false}) {
    EDGEADMM_HOST_TRY_ASSIGN(const PrivacyLossDistribution* pld,
                             Composed(remove, step));
    double value = 0.0;
    if (query == Query::kDelta) {
      value = pld->Delta(x);
    } else {
      EDGEADMM_HOST_TRY_ASSIGN(value, pld->Epsilon(x));
    }
    worst = std::max(worst, value);
  }
  return worst;
}

host::ErrorOr<double> PldAccountant::Answer(Query query, double x) const {
  EDGEADMM_HOST_TRY_ASSIGN(double coarse, WorstOnGrid(query, x, options_.step));
  answer_step_ = options_.step;
  const double fine =
      RefinedStep(query == Query::kDelta ? x : coarse);  // eps of the answer
  if (fine >= options_.step) return coarse;
  // Both grids give upper bounds: keep the smaller.
  EDGEADMM_HOST_TRY_ASSIGN(const double refined, WorstOnGrid(query, x, fine));
  if (refined < coarse) answer_step_ = fine;
  return std::min(coarse, refined);
}

host::ErrorOr<double> PldAccountant::Delta(double epsilon) const {
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    return host::Error::InvalidArgument(
        internal::Describe("epsilon", "finite and >= 0", epsilon));
  }
  return Answer(Query::kDelta, epsilon);
}

host::ErrorOr<double> PldAccountant::Epsilon(double delta) const {
  EDGEADMM_HOST_TRY(internal::CheckOpenUnit("delta", delta));
  return Answer(Query::kEpsilon, delta);
}

std::string PldAccountant::MechanismLabel() const {
  bool plain = false, sampled = false;
  for (const auto& entry : counts_) {
    (entry.first.first == 1.0 ? plain : sampled) = true;
  }
  if (plain && sampled) return "gaussian+poisson_subsampled_gaussian";
  if (plain) return "gaussian";
  if (sampled) return "poisson_subsampled_gaussian";
  return "none";
}

}  // namespace edgeadmm::privacy
