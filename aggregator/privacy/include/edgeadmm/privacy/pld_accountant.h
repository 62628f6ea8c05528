// PldAccountant: privacy-loss-distribution accounting of a heterogeneous
// schedule of Poisson-subsampled Gaussian releases under add/remove
// neighbours, beside the RDP Accountant (composition.h).
//
// Each distinct (q, nu) is discretised once per direction by connect the dots
// (subsampled_gaussian_pld.h), and the schedule is composed in one FFT
// (PrivacyLossDistribution::Compose): each mechanism's transform raised to
// its count, the transforms multiplied, one inverse (Koskela, Jalko, Honkela
// 2020; Koskela et al. 2021).
// Both directions (remove, add) are composed separately, since the adversary's
// neighbouring pair is the same in every round; the reported delta(eps) is the
// larger of the two, eps(delta) likewise. Every approximation is pessimistic,
// so the numbers are upper bounds on the exact add/remove delta(eps).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/privacy_loss_distribution.h"

namespace edgeadmm::privacy {

struct PldOptions {
  // Coarsest grid spacing of the privacy loss (1e-3 keeps 10^4 rounds within
  // a few MB). Discretising each round spreads its loss over neighbouring
  // grid points, adding variance of order step^2 per round, so after T
  // rounds eps is off by about sqrt(T) * step (still an upper bound). When
  // the answer is small against that, Epsilon/Delta recompute on the step
  // eps / (50 sqrt(T)), no finer than step * min_step_fraction, and return
  // the smaller of the two (both are upper bounds).
  double step = 1e-3;
  double min_step_fraction = 0.01;
  // Mass cut per tail at each truncation (each cut only raises delta).
  double tail_mass = 1e-15;
};

// Citation for reports.
const char* PldReference();

class PldAccountant {
 public:
  explicit PldAccountant(PldOptions options = {});

  // Adds `count` releases of the Poisson-subsampled Gaussian with rate q
  // (q = 1: the plain Gaussian) and noise multiplier nu. INVALID_ARGUMENT
  // on q not in (0, 1], nu not finite and > 0, or count 0.
  host::Error Compose(double q, double noise_multiplier, uint64_t count = 1);

  // Upper bound on delta(eps), the larger direction. INVALID_ARGUMENT for a
  // negative or non-finite eps.
  host::ErrorOr<double> Delta(double epsilon) const;
  // Smallest eps >= 0 with Delta(eps) <= delta. INVALID_ARGUMENT unless delta
  // in (0, 1).
  host::ErrorOr<double> Epsilon(double delta) const;

  uint64_t compositions() const { return compositions_; }
  // "gaussian", "poisson_subsampled_gaussian" or both joined by '+'; "none".
  std::string MechanismLabel() const;
  const PldOptions& options() const { return options_; }
  // The loss grid spacing that gave the last Epsilon or Delta answer (the
  // finer grid when it gave the smaller bound); options().step before any.
  double answer_step() const { return answer_step_; }

  // The composed PLD of one direction on grid `step` (computed on first use
  // after a change).
  host::ErrorOr<const PrivacyLossDistribution*> Composed(bool remove,
                                                         double step) const;

 private:
  // The finer step for an answer near `epsilon` (options.step when no
  // refinement is needed).
  double RefinedStep(double epsilon) const;
  enum class Query : uint8_t { kDelta, kEpsilon };
  // The larger of the two directions' delta(x) or eps(x) on grid `step`.
  host::ErrorOr<double> WorstOnGrid(Query query, double x, double step) const;
  // WorstOnGrid on options.step, and on RefinedStep when finer (the smaller).
  host::ErrorOr<double> Answer(Query query, double x) const;

  PldOptions options_;
  std::map<std::pair<double, double>, uint64_t> counts_;  // (q, nu) -> count
  uint64_t compositions_ = 0;
  mutable double answer_step_;
  // step -> composed PLD of the (remove, add) directions.
  mutable std::map<double, std::unique_ptr<PrivacyLossDistribution>>
      composed_[2];
};

}  // namespace edgeadmm::privacy
