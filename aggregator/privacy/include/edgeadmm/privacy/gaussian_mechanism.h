// The Gaussian mechanism: f(D) + N(0, s^2 I) with L2 sensitivity Delta.
//
// RDP (Mironov 2017, Prop. 7): eps(alpha) = alpha * Delta^2 / (2 s^2)
// = alpha / (2 z^2) with the noise multiplier z = s / Delta. Exact (the
// divergence between two Gaussians with the same covariance), for every
// neighbouring relation whose sensitivity is Delta.
#pragma once

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

// RDP of the Gaussian mechanism at order alpha for noise multiplier z.
// INVALID_ARGUMENT when alpha is not a finite order > 1 or z is not finite and
// > 0.
host::ErrorOr<double> GaussianRdp(double alpha, double noise_multiplier);

// Exact epsilon(delta) of the Gaussian mechanism with noise multiplier z, for
// the smallest epsilon >= 0 with
//   delta(eps) = Phi(1/(2z) - eps z) - e^eps Phi(-1/(2z) - eps z) <= delta
// (Balle & Wang 2018, Thm. 8). A composition of Gaussian mechanisms with
// multipliers z_k, chosen adaptively, is again this curve with
// 1/z^2 = sum 1/z_k^2 (Dong, Roth, Su 2022, Cor. 3.3: mu-GDP composes with
// mu^2 = sum mu_k^2; Smith & Thakurta 2022 for adaptively chosen mu_k).
// Returned rounded up to 1e-12 relative (an upper bound). INVALID_ARGUMENT
// when z is not finite and > 0 or delta is not in (0, 1).
host::ErrorOr<double> GaussianEpsilon(double noise_multiplier, double delta);

}  // namespace edgeadmm::privacy
