// The distributed discrete Gaussian: the sum of n independent discrete
// Gaussians N_Z(0, sigma^2)^d added, one each, by n devices to integer
// vectors, as secure aggregation releases it (the devices' encoding is
// sdk/include/edgeadmm/secagg/ddg_encoding.h).
//
// The sum of n discrete Gaussians is not a discrete Gaussian, but it is
// close to N_Z(0, n sigma^2): Kairouz, Liu and Steinke, "The Distributed
// Discrete Gaussian Mechanism for Federated Learning with Secure
// Aggregation" (ICML 2021; arXiv 2102.06387, Prop. 14 / Eq. 17, used by
// their Thm. 1) bound, for sigma >= 1/2 and any two integer inputs x, x'
// with ||x - x'||_2 <= D2 and ||x - x'||_1 <= D1, and every order alpha:
//   D_alpha(x + Z || x' + Z) <= min{ alpha s^2/2 + tau d,
//                                    alpha/2 (s^2 + 2 tau D1/(sqrt(n) sigma)
//                                             + tau^2 d),
//                                    alpha/2 (s + tau sqrt(d))^2 }
// with s = D2/(sqrt(n) sigma) (the ideal N_Z(0, n sigma^2) term, which is
// the continuous Gaussian's alpha s^2/2) and
//   tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 sigma^2 k/(k+1)),
// the distance of the sum from the ideal discrete Gaussian. The bound comes
// coordinate by coordinate (each coordinate's divergence is at most
// alpha D_j^2/(2 n sigma^2) + tau, or alpha/2 (|D_j|/(sqrt(n) sigma) + tau)^2)
// and sums them over the d coordinates. Without tau it would be false:
// for sigma = 1/2, n = 2, a shift of 1 at alpha = 4 the exact divergence is
// 4.1324 > 4 (tests/unit/privacy/distributed_discrete_gaussian_test.cc
// convolves the exact distributions and checks the bound at many points).
//
// The bound is not monotone in n: tau grows about linearly with n, so for
// small sigma more devices would give a larger bound. The true divergence
// never grows with n (the sum of n' <= n devices' noise plus the other
// n - n' independent noises is the sum of n: post-processing), so every
// B(n') with n' <= n bounds the n-device mechanism too, and the value used
// is min over all n' <= n of B(n'), non-increasing in n. (It is found by
// branch and bound: on an interval [lo, hi] of counts, the formula at
// s(hi) and tau(lo) bounds every B(n') from below, so an interval whose
// bound is not below the best value so far is skipped. The value equals
// the plain scan's.)
// Host code.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeadmm/host/error.h"

namespace edgeadmm::privacy {

struct DistributedDiscreteGaussian {
  double l2_sensitivity = 1.0;  // D2, on the integer grid
  double l1_sensitivity = 1.0;  // D1, on the integer grid
  double sigma = 1.0;           // each device's std, on the grid (>= 1/2)
  uint64_t devices = 1;         // n: the devices whose noise is secret
  uint64_t dimension = 1;       // d: coordinates of the released sum
};

// tau above (0 for n = 1). Summed exactly, term by term.
double DistributedDiscreteGaussianTau(double sigma, uint64_t devices);

// OK for a usable descriptor; INVALID_ARGUMENT for sigma < 1/2 (where the
// bound is not proven), non-positive or non-finite sensitivities, n or
// d = 0.
host::Error CheckDistributedDiscreteGaussian(
    const DistributedDiscreteGaussian& mechanism);

// The theorem's B(n') alone: the bound above for `count` devices (no
// minimum over smaller counts). INVALID_ARGUMENT for count = 0, alpha <= 1
// or a descriptor CheckDistributedDiscreteGaussian refuses.
host::ErrorOr<double> DistributedDiscreteGaussianRdpAtCount(
    double alpha, const DistributedDiscreteGaussian& mechanism, uint64_t count);

// The RDP bound above (the minimum over n' <= n) at order alpha.
// INVALID_ARGUMENT for alpha <= 1 or a descriptor
// CheckDistributedDiscreteGaussian refuses.
host::ErrorOr<double> DistributedDiscreteGaussianRdp(
    double alpha, const DistributedDiscreteGaussian& mechanism);

// The bound at every order of `orders` (tau summed once).
host::ErrorOr<std::vector<double>> DistributedDiscreteGaussianRdpCurve(
    const DistributedDiscreteGaussian& mechanism,
    const std::vector<double>& orders);

}  // namespace edgeadmm::privacy
