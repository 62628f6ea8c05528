// The privacy-loss distribution of one Poisson-subsampled Gaussian release
// (rate q, sensitivity 1, noise multiplier nu; q = 1 is the plain Gaussian)
// under add/remove neighbours, discretised by "connect the dots"
// (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, Sec. 3 / Alg. 1).
//
// With mu0 = N(0, nu^2) and mu1 = (1 - q) N(0, nu^2) + q N(1, nu^2)
// (Koskela et al. 2021, Sec. 6; Mironov, Talwar, Zhang 2019):
//   remove direction: (P, Q) = (mu1, mu0), loss log(mu1/mu0) increasing in x;
//   add direction:    (P, Q) = (mu0, mu1), loss log(mu0/mu1) decreasing in x.
// The exact hockey-stick divergence of each direction has a closed form in
// the normal CDF, because the loss is monotone in x:
//   delta(eps) = P(L > eps) - e^eps Q(L > eps).
//
// Connect the dots: on the grid l_0 < ... < l_m (spacing `step`) put masses
// so that the discrete PLD's delta equals the exact delta at every grid point.
// The discrete delta is linear in e^eps between grid points and the exact one
// is convex in e^eps, so the chord lies above: the discrete pair dominates
// the exact pair at EVERY eps (ibid., Thm. 3.3), hence also after composition.
// With d_i the exact delta at l_i and h = step (derived from the slopes in
// e^eps):
//   p_j = (e^h (d_{j-1} - d_j) - (d_j - d_{j+1})) / (e^h - 1),  0 < j < m,
//   p_m = e^h (d_{m-1} - d_m) / (e^h - 1),   p_inf = d_m,
//   p_0 = 1 - p_inf - sum_{j>0} p_j   (the chord to delta(-inf) = 1).
// l_m is chosen so that P(L > l_m) <= tail_mass, l_0 so that
// P(L < l_0) <= tail_mass (which makes the chord below l_0 tight).
#pragma once

#include <cstdint>

#include "edgeadmm/host/error.h"
#include "edgeadmm/privacy/privacy_loss_distribution.h"

namespace edgeadmm::privacy {

enum class PldDirection : uint8_t {
  kRemove = 0,  // (P, Q) = (with the subject, without)
  kAdd = 1,     // (P, Q) = (without the subject, with)
};

// "remove" or "add".
const char* PldDirectionName(PldDirection direction);

// Exact delta(eps) of one release in `direction`, for any real eps.
// INVALID_ARGUMENT when q is not in (0, 1] or nu not finite and > 0.
host::ErrorOr<double> SubsampledGaussianDelta(double q, double noise_multiplier,
                                              PldDirection direction,
                                              double epsilon);

// The connect-the-dots PLD of one release on the grid step * k.
// INVALID_ARGUMENT on bad q / nu, step not > 0 or tail_mass not in (0, 1).
host::ErrorOr<PrivacyLossDistribution> SubsampledGaussianPld(
    double q, double noise_multiplier, PldDirection direction, double step,
    double tail_mass);

}  // namespace edgeadmm::privacy
