// The Poisson-subsampled Gaussian mechanism under add/remove neighbours.
//
// Each subject is included independently with probability q; the sum of the
// included contributions (each of L2 norm <= Delta) gets N(0, s^2 I) noise.
// With z = s / Delta and, w.l.o.g. (Mironov, Talwar, Zhang 2019, "Renyi
// Differential Privacy of the Sampled Gaussian Mechanism", Sec. 3),
//   mu0 = N(0, z^2),  mu1 = (1 - q) N(0, z^2) + q N(1, z^2),
// the RDP at order alpha is eps(alpha) = log(A_alpha) / (alpha - 1) with
//   A_alpha = E_{x ~ mu0}[(mu1(x) / mu0(x))^alpha]       (MTZ19, Sec. 3.3),
// i.e. D_alpha(mu1 || mu0), which dominates D_alpha(mu0 || mu1) (MTZ19,
// Thm. 5; checked numerically by tests/golden/privacy).
//
// Integer alpha: the binomial expansion (MTZ19, Sec. 3.3, eq. for integer
// alpha), written as A - 1 = sum_{k=2..alpha} C(alpha,k) (1-q)^(alpha-k) q^k
// (exp((k^2-k)/(2z^2)) - 1) so it has no cancellation, summed in log space.
// Fractional alpha: A - 1 = E_mu0[(1+X)^alpha - 1 - alpha X] with
// X = q (exp((2x-1)/(2z^2)) - 1) (the subtracted term has mean 0), a positive
// integrand, integrated in log space by the trapezoid rule, which converges
// exponentially for this analytic, Gaussian-decaying integrand.
// q = 1 is the plain Gaussian alpha / (2 z^2) exactly.
#pragma once

#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

// RDP at order alpha of the Poisson-subsampled Gaussian with rate q and noise
// multiplier z. Integer orders use the binomial form, fractional orders the
// quadrature. INVALID_ARGUMENT when q is not in (0, 1], z is not finite and
// > 0, or alpha is not a finite order > 1.
host::ErrorOr<double> PoissonSubsampledGaussianRdp(double q,
                                                   double noise_multiplier,
                                                   double alpha);

// The RDP at every order of `orders` at once (one quadrature grid and one
// table of binomial terms shared by all orders; same values as the per-order
// function). INVALID_ARGUMENT on bad q, z or an order <= 1.
host::ErrorOr<std::vector<double>> PoissonSubsampledGaussianRdpCurve(
    double q, double noise_multiplier, const std::vector<double>& orders);

// The binomial closed form for integer alpha >= 2 (exact). INVALID_ARGUMENT
// on bad q / z, OUT_OF_RANGE when alpha is not an integer.
host::ErrorOr<double> PoissonSubsampledGaussianRdpBinomial(
    double q, double noise_multiplier, double alpha);

// The log-space quadrature, valid for every order (integer or not).
// INVALID_ARGUMENT on bad q, z or alpha.
host::ErrorOr<double> PoissonSubsampledGaussianRdpQuadrature(
    double q, double noise_multiplier, double alpha);

}  // namespace edgeadmm::privacy
