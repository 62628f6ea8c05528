// The distributed discrete Gaussian's RDP bound (KLS Prop. 14) against
// values computed independently (a Python transcription of the theorem),
// against the exact Renyi divergence of sums of discrete Gaussians obtained
// by convolution, and its place in the accountant.
#include "edgeadmm/privacy/distributed_discrete_gaussian.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/privacy/mechanism.h"
#include "gtest/gtest.h"

namespace edgeadmm::privacy {
namespace {

DistributedDiscreteGaussian Ddg(double l2, double l1, double sigma, uint64_t n,
                                uint64_t d) {
  DistributedDiscreteGaussian m;
  m.l2_sensitivity = l2;
  m.l1_sensitivity = l1;
  m.sigma = sigma;
  m.devices = n;
  m.dimension = d;
  return m;
}

double Rdp(double alpha, const DistributedDiscreteGaussian& m) {
  return DistributedDiscreteGaussianRdp(alpha, m).value();
}

// Values from an independent Python computation (math.exp, plain loops) of
// the theorem's formula minimised over the device counts n' <= n:
// alpha, D2, D1, sigma, n, d, tau(n), bound. The fourth and last points are
// below the theorem's B(n) (69.88 and 3256.1): there a smaller count wins.
struct Point {
  double alpha, l2, l1, sigma;
  uint64_t n, d;
  double tau, bound;
};
constexpr Point kPoints[] = {
    {4, 1, 1, 0.5, 2, 1, 0.8480497247111379, 4.848049724711137},
    {2, 3, 5, 0.7, 10, 8, 0.11792820305148437, 2.480736499639325},
    {10, 40.5, 300, 1.0, 1000, 128, 0.0005731282577500227, 8.255831945216718},
    {1.5, 12, 60, 0.6, 50, 64, 0.9980760684622427, 59.352115774777765},
    {32, 100, 1000, 3, 30000, 128, 2.649521392183843e-38, 0.5925925925925927},
    {4, 20, 200, 0.6, 3000, 128, 25.432436717130784, 170.87573517209864},
};

TEST(DistributedDiscreteGaussianTest, MatchesAnIndependentComputation) {
  for (const Point& p : kPoints) {
    // tau is rounded up by n ulps (an upper bound on the sum's round-off).
    EXPECT_NEAR(DistributedDiscreteGaussianTau(p.sigma, p.n), p.tau,
                1e-10 * p.tau);
    EXPECT_NEAR(Rdp(p.alpha, Ddg(p.l2, p.l1, p.sigma, p.n, p.d)), p.bound,
                1e-12 * p.bound)
        << "alpha " << p.alpha << " n " << p.n;
  }
  EXPECT_EQ(DistributedDiscreteGaussianTau(1.0, 1), 0.0);
}

// log of the pmf of the sum of n independent N_Z(0, sigma^2), on
// [-range, range], by repeated convolution in log space (exact up to the
// truncated mass, far below the double's precision at range = 60 sigma n).
std::vector<double> LogSumPmf(double sigma, int n, int range) {
  auto log_add = [](double a, double b) {
    if (a == -INFINITY) return b;
    const double hi = std::max(a, b);
    return hi + std::log1p(std::exp(std::min(a, b) - hi));
  };
  const int width = 2 * range + 1;
  std::vector<double> one(width);
  double norm = -INFINITY;
  for (int k = -range; k <= range; ++k) {
    one[k + range] = -k * static_cast<double>(k) / (2 * sigma * sigma);
    norm = log_add(norm, one[k + range]);
  }
  for (double& v : one) v -= norm;
  std::vector<double> sum = one;
  for (int i = 1; i < n; ++i) {
    std::vector<double> next(width, -INFINITY);
    for (int x = 0; x < width; ++x) {
      for (int y = 0; y < width; ++y) {
        const int z = x + y - range;
        if (z < 0 || z >= width) continue;
        next[z] = log_add(next[z], sum[x] + one[y]);
      }
    }
    sum = next;
  }
  return sum;
}

// max of D_alpha(Y + shift || Y) and D_alpha(Y || Y + shift).
double ExactRenyi(const std::vector<double>& log_pmf, int shift, double alpha) {
  double best = 0;
  for (int sign : {1, -1}) {
    double total = -INFINITY;
    const int width = static_cast<int>(log_pmf.size());
    for (int i = 0; i < width; ++i) {
      const int j = i - sign * shift;
      if (j < 0 || j >= width) continue;
      const double t = alpha * log_pmf[j] + (1 - alpha) * log_pmf[i];
      const double hi = std::max(total, t);
      total = total == -INFINITY
                  ? t
                  : hi + std::log1p(std::exp(std::min(total, t) - hi));
    }
    best = std::max(best, total / (alpha - 1));
  }
  return best;
}

// The curve prunes counts by a lower bound instead of trying them all; its
// value must be the plain minimum of the library's B(n') over every
// n' <= n, bit for bit, also where the minimum lies far below n (small
// sigma: tau grows with n').
TEST(DistributedDiscreteGaussianTest, EqualsThePlainMinimumOverCounts) {
  int interior = 0;
  for (double sigma : {0.5, 0.6, 0.75, 1.0, 1.6}) {
    for (uint64_t n : {1, 2, 17, 250, 1500}) {
      const auto m = Ddg(20, 200, sigma, n, 128);
      const std::vector<double> orders = {1.25, 2.0, 4.0, 16.0, 256.0};
      const std::vector<double> curve =
          DistributedDiscreteGaussianRdpCurve(m, orders).value();
      for (size_t i = 0; i < orders.size(); ++i) {
        double plain = INFINITY;
        uint64_t argmin = 0;
        for (uint64_t k = 1; k <= n; ++k) {
          const double b =
              DistributedDiscreteGaussianRdpAtCount(orders[i], m, k).value();
          if (b < plain) plain = b, argmin = k;
        }
        EXPECT_EQ(curve[i], plain)
            << "sigma " << sigma << " n " << n << " alpha " << orders[i];
        if (argmin > 1 && argmin < n) ++interior;
      }
    }
  }
  EXPECT_GE(interior, 10);  // the minimum is not always at an end
}

TEST(DistributedDiscreteGaussianTest, BoundsTheExactDivergenceAndNeedsTau) {
  int above_ideal = 0;
  for (double sigma : {0.5, 0.6, 0.8}) {
    for (int n : {2, 3, 4}) {
      const std::vector<double> pmf = LogSumPmf(sigma, n, 40);
      for (int shift : {1, 2, 3}) {
        for (double alpha : {2.0, 4.0, 8.0}) {
          const double exact = ExactRenyi(pmf, shift, alpha);
          const double bound = Rdp(alpha, Ddg(shift, shift, sigma, n, 1));
          EXPECT_LE(exact, bound * (1 + 1e-12))
              << "sigma " << sigma << " n " << n << " shift " << shift
              << " alpha " << alpha;
          // Without tau the bound is the ideal N_Z(0, n sigma^2)'s, which
          // the sum exceeds at these points (so a bound without the tau
          // term fails the check above).
          const double ideal = alpha * shift * shift / (2 * n * sigma * sigma);
          if (exact > ideal * (1 + 1e-9)) ++above_ideal;
        }
      }
    }
  }
  EXPECT_GE(above_ideal, 20);
  // The point quoted in the header.
  const std::vector<double> pmf = LogSumPmf(0.5, 2, 40);
  EXPECT_NEAR(ExactRenyi(pmf, 1, 4.0), 4.1324427, 1e-6);
}

TEST(DistributedDiscreteGaussianTest, IsAtLeastTheContinuousGaussian) {
  for (const Point& p : kPoints) {
    const auto m = Ddg(p.l2, p.l1, p.sigma, p.n, p.d);
    for (double alpha : {1.1, 2.0, 8.0, 64.0, 1024.0}) {
      const double s = p.l2 / (std::sqrt(double(p.n)) * p.sigma);
      EXPECT_GE(Rdp(alpha, m), alpha * s * s / 2);
    }
  }
}

TEST(DistributedDiscreteGaussianTest, DecreasesInDevicesAndSigma) {
  for (double alpha : {1.5, 4.0, 32.0}) {
    double last = INFINITY;
    // At sigma = 0.6 the theorem's own B(n) grows from n = 100 on (tau
    // grows with n); the minimum over n' <= n does not.
    for (uint64_t n : {1, 2, 5, 10, 100, 1000, 30000}) {
      const double v = Rdp(alpha, Ddg(20, 200, 0.6, n, 128));
      EXPECT_LE(v, last) << n;
      last = v;
    }
    EXPECT_LT(Rdp(alpha, Ddg(20, 200, 0.6, 10, 128)),
              Rdp(alpha, Ddg(20, 200, 0.6, 2, 128)));
    for (uint64_t n : {3, 10, 100, 1000, 30000}) {
      const double v = Rdp(alpha, Ddg(20, 200, 2.0, n, 128));
      EXPECT_LT(v, Rdp(alpha, Ddg(20, 200, 2.0, n - 1, 128))) << n;
    }
    last = INFINITY;
    for (double sigma : {0.5, 0.55, 0.7, 1.0, 2.0, 10.0}) {
      const double v = Rdp(alpha, Ddg(20, 200, sigma, 100, 128));
      EXPECT_LT(v, last) << sigma;
      last = v;
    }
  }
}

TEST(DistributedDiscreteGaussianTest, RefusesWhatThePropositionDoesNotCover) {
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(2, Ddg(1, 1, 0.49, 2, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(2, Ddg(0, 1, 1, 2, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(2, Ddg(1, 0, 1, 2, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(2, Ddg(1, 1, 1, 0, 1)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(2, Ddg(1, 1, 1, 2, 0)).ok());
  EXPECT_FALSE(DistributedDiscreteGaussianRdp(1, Ddg(1, 1, 1, 2, 1)).ok());
  EXPECT_FALSE(
      DistributedDiscreteGaussianRdpAtCount(2, Ddg(1, 1, 1, 2, 1), 0).ok());
  EXPECT_FALSE(
      DistributedDiscreteGaussianRdpAtCount(1, Ddg(1, 1, 1, 2, 1), 1).ok());
  EXPECT_FALSE(
      DistributedDiscreteGaussianRdpAtCount(2, Ddg(1, 1, 0.49, 2, 1), 1).ok());
}

Mechanism DdgMechanism(double sigma, uint64_t n) {
  Mechanism m;
  m.kind = MechanismKind::kDistributedDiscreteGaussian;
  m.neighbouring = Neighbouring::kZeroOut;
  m.sensitivity = 40.5;
  m.l1_sensitivity = 300;
  m.noise_std = std::sqrt(static_cast<double>(n)) * sigma;
  m.devices = n;
  m.dimension = 128;
  return m;
}

TEST(DistributedDiscreteGaussianTest, ComposesInTheAccountantWithItsLabel) {
  const Mechanism m = DdgMechanism(1.0, 1000);
  ASSERT_TRUE(ValidateMechanism(m).ok()) << ValidateMechanism(m).message();
  EXPECT_NEAR(RdpAt(m, 10).value(), 8.255831945216718, 1e-11);
  CurveCache cache;
  Accountant accountant;
  ASSERT_TRUE(accountant.Compose(m, 5, &cache).ok());
  // Another n is another curve, not the cached one.
  ASSERT_TRUE(accountant.Compose(DdgMechanism(1.0, 999), 1, &cache).ok());
  EXPECT_EQ(cache.size(), 2u);
  // The same multiplier at twice the scale has another tau: another curve.
  Mechanism scaled = DdgMechanism(2.0, 1000);
  scaled.sensitivity *= 2;
  scaled.l1_sensitivity *= 2;
  ASSERT_EQ(scaled.NoiseMultiplier(), m.NoiseMultiplier());
  const RdpCurve* scaled_curve = cache.Get(scaled).value();
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_NE(scaled_curve->values(), cache.Get(m).value()->values());
  const double want =
      5 * RdpAt(m, 10).value() + RdpAt(DdgMechanism(1.0, 999), 10).value();
  const auto& grid = accountant.curve().grid();
  for (size_t i = 0; i < grid.size(); ++i) {
    if (grid[i] == 10.0) {
      EXPECT_NEAR(accountant.curve()[i], want, 1e-9);
    }
  }
  const EpsilonReport report =
      accountant.Epsilon(1e-5, Conversion::kImproved).value();
  EXPECT_EQ(report.mechanism, "distributed_discrete_gaussian");
  EXPECT_EQ(report.neighbouring, "zero-out");
  const auto restored = Accountant::Restore(
      accountant.curve(), accountant.compositions(),
      accountant.mechanism_bits(), accountant.neighbouring_bits());
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->MechanismLabel(), "distributed_discrete_gaussian");
  EXPECT_FALSE(Accountant::Restore(accountant.curve(), 1, 0x10, 0).ok());

  Mechanism sampled = m;
  sampled.sampling_rate = 0.5;
  EXPECT_FALSE(ValidateMechanism(sampled).ok());
  EXPECT_FALSE(ValidateMechanism(DdgMechanism(0.4, 1000)).ok());
}

}  // namespace
}  // namespace edgeadmm::privacy
