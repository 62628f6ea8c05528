// Property: the PLD accountant's eps(delta) is never above the RDP
// accountant's eps with the improved conversion (Canonne-Kamath-Steinke 2020)
// on a grid of (q, nu, T, delta), Poisson-subsampled Gaussian, add/remove.
// Both are upper bounds on the same exact eps(delta); the PLD one is
// near-exact, the RDP one loses through the conversion.
#include <cmath>
#include <cstdio>

#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/pld_accountant.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

double RdpEpsilon(double q, double nu, uint64_t t, double delta) {
  Mechanism m;
  m.kind = q < 1.0 ? MechanismKind::kPoissonSubsampledGaussian
                   : MechanismKind::kGaussian;
  m.sampling_rate = q;
  m.noise_std = nu;
  Accountant accountant;
  EXPECT_TRUE(accountant.Compose(m, t).ok());
  return accountant.Epsilon(delta, Conversion::kImproved).value().epsilon;
}

TEST(PldVsRdpTest, PldEpsilonNeverAboveRdpImproved) {
  int cases = 0;
  double worst_ratio = 0.0;
  for (double q : {0.001, 0.01, 0.1, 1.0}) {
    for (double nu : {0.8, 1.0, 2.0, 5.0}) {
      for (uint64_t t : {1u, 10u, 100u, 1000u}) {
        PldAccountant pld;
        ASSERT_TRUE(pld.Compose(q, nu, t).ok());
        for (double delta : {1e-5, 1e-8}) {
          const double rdp = RdpEpsilon(q, nu, t, delta);
          const double got = pld.Epsilon(delta).value();
          EXPECT_LE(got, rdp)
              << "q " << q << " nu " << nu << " T " << t << " delta " << delta;
          if (rdp > 0) worst_ratio = std::max(worst_ratio, got / rdp);
          ++cases;
        }
      }
    }
  }
  std::printf("PLD <= RDP on %d cases, largest PLD/RDP ratio %.4f\n", cases,
              worst_ratio);
}

}  // namespace
}  // namespace edgeadmm::privacy
