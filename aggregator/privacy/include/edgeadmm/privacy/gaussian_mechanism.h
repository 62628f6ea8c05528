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

}  // namespace edgeadmm::privacy
