// PrivacyLossDistribution: a discrete privacy-loss distribution (PLD) on the
// grid step * k, plus a mass at +infinity, for one ordered pair (P, Q) of
// output distributions (Koskela, Jalko, Honkela 2020; Koskela et al. 2021,
// "Tight differential privacy for discrete-valued mechanisms and for the
// subsampled Gaussian mechanism using FFT"; Doroshenko, Ghazi, Kamath, Kumar,
// Manurangsi 2022, "Connect the dots: tighter discrete approximations of
// privacy loss distributions").
//
// The hockey-stick divergence of the pair is (Koskela 2020, eq. 2.4)
//   delta(eps) = p_inf + sum_k p_k (1 - e^{eps - step k})_+ ,
// composition of independent mechanisms is convolution of their PLDs
// (ibid., Thm. 5), computed by FFT. Every step here is pessimistic: the
// result dominates the exact PLD in hockey-stick divergence at every eps, up
// to floating-point round-off of the FFT (about 1e-16 per bin, relative to
// the total mass).
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

class PrivacyLossDistribution;

// `count` independent copies of `pld` (a factor of a composition).
struct PldPower {
  const PrivacyLossDistribution* pld;
  uint64_t count;
};

// Largest grid (bins) a PLD or an FFT here may use (2^22: 32 MB of doubles,
// 64 MB of complex transform). Beyond it the operations return OUT_OF_RANGE:
// such a schedule has a huge epsilon or needs a coarser step.
constexpr size_t kMaxPldBins = size_t{1} << 22;

// OUT_OF_RANGE naming `what` when `bins` exceeds kMaxPldBins.
host::Error CheckPldBins(const char* what, double bins);

class PrivacyLossDistribution {
 public:
  // pmf[i] is the mass at loss (min_index + i) * step. INVALID_ARGUMENT
  // unless step > 0, the pmf is non-empty with finite entries >= 0 and
  // infinity_mass in [0, 1].
  static host::ErrorOr<PrivacyLossDistribution> Create(double step,
                                                       int64_t min_index,
                                                       std::vector<double> pmf,
                                                       double infinity_mass);

  double step() const { return step_; }
  int64_t min_index() const { return min_index_; }
  const std::vector<double>& pmf() const { return pmf_; }
  double infinity_mass() const { return infinity_mass_; }

  // The PLD of the composition of every factor's `count` independent copies
  // (the pair (P1^n1 x P2^n2 x ..., Q1^n1 x Q2^n2 x ...); composition is
  // convolution, Koskela 2020 Thm. 5). All factors go through one cyclic
  // FFT (fft_convolution.h): each factor's transform raised to its count,
  // the transforms multiplied, one inverse. The window of composed losses is
  // chosen by a Chernoff bound on the sum (log-MGFs add) so that the composed
  // mass above it is <= tail_mass (counted at +infinity) and below it is
  // <= tail_mass (wrapped up into the window, i.e. moved to a higher loss);
  // then the tails are cut (TruncateTails). Koskela et al. 2021, Sec. 5
  // bound the same aliasing error. One factor with count 1 is returned as
  // is. INVALID_ARGUMENT when there is no factor, a count is 0 or the steps
  // differ, OUT_OF_RANGE when the window would exceed kMaxPldBins.
  static host::ErrorOr<PrivacyLossDistribution> Compose(
      const std::vector<PldPower>& factors, double tail_mass);

  // delta(eps) of the pair, for any real eps.
  double Delta(double epsilon) const;
  // The smallest eps >= 0 with Delta(eps) <= delta (exact on this PLD:
  // delta(eps) is A - e^eps B between grid points); +inf when the mass at
  // infinity is >= delta. INVALID_ARGUMENT unless delta in (0, 1).
  host::ErrorOr<double> Epsilon(double delta) const;

  // Drops the lowest bins of total mass <= tail_mass by moving their mass up
  // to the lowest kept bin, and the highest bins of total mass <= tail_mass
  // by moving it to +infinity. Both moves only increase delta(eps).
  void TruncateTails(double tail_mass);

 private:
  PrivacyLossDistribution(double step, int64_t min_index,
                          std::vector<double> pmf, double infinity_mass)
      : step_(step),
        min_index_(min_index),
        pmf_(std::move(pmf)),
        infinity_mass_(infinity_mass) {}

  double step_;
  int64_t min_index_;
  std::vector<double> pmf_;
  double infinity_mass_;
};

}  // namespace edgeadmm::privacy
