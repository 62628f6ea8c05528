// The Gaussian mechanism on a cohort sampled without replacement (a fixed
// m of n), replace-one neighbours.
//
// Bound of Wang, Balle, Kasiviswanathan 2019 ("Subsampled Renyi Differential
// Privacy and Analytical Moments Accountant", Thm. 9) with sampling ratio
// gamma = m / n, for integer alpha >= 2 and a base mechanism with RDP eps(j):
//   eps'(alpha) <= 1/(alpha-1) log(1 + gamma^2 C(alpha,2)
//                    min{4(e^{eps(2)} - 1), e^{eps(2)} min{2,
//                    (e^{eps(inf)}-1)^2}}
//                  + sum_{j=3..alpha} gamma^j C(alpha,j) e^{(j-1) eps(j)}
//                    min{2, (e^{eps(inf)} - 1)^j}).
// For the Gaussian eps(j) = j / (2 z^2) (z = noise std / replace-one
// sensitivity) and eps(inf) = inf, so both inner minima are 2.
// This is an upper bound, not exact. Fractional orders: K(alpha) =
// (alpha-1) eps'(alpha) is convex in alpha with K(1) = 0 (a cumulant
// generating function), so linear interpolation of K between the neighbouring
// integer orders is an upper bound. Every order is also capped by the
// unsampled Gaussian alpha / (2 z^2) (joint quasi-convexity: subsampling never
// hurts under replace-one).
#pragma once

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

// Upper bound on the RDP at order alpha of the Gaussian with noise multiplier
// z on a cohort drawn without replacement at ratio gamma = m/n (replace-one).
// INVALID_ARGUMENT when gamma is not in (0, 1], z is not finite and > 0 or
// alpha is not a finite order > 1.
host::ErrorOr<double> WithoutReplacementGaussianRdp(double gamma,
                                                    double noise_multiplier,
                                                    double alpha);

}  // namespace edgeadmm::privacy
