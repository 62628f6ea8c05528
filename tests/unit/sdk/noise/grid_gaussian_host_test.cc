// Grid Gaussian noise (grid_gaussian.h), the released distribution on the
// host: 2·10^5 coordinates released by AddGridNoise around a fixed clipped
// vector; each released value must be on the grid, and its offset from the
// rounded point, k = released/g − r, must follow N_Z(0, 2^20): chi-square
// on cells of 64 values against the exact pmf, mean within 5 standard
// errors of 0 and the second moment within 5 standard errors of σ² (the
// discrete Gaussian's variance at σ = 1024 equals σ² to double precision,
// CKS 2020 Cor. 9). A Box–Muller sample would fail the on-grid check.
// Deterministic seeds; 5-sigma thresholds.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "edgeadmm/grid_gaussian.h"
#include "gtest/gtest.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

// Upper 5-sigma point of χ²_ν (Wilson–Hilferty).
double ChiSquareCritical(int dof) {
  const double v = dof, z = 5.0;
  const double c = 1 - 2 / (9 * v) + z * std::sqrt(2 / (9 * v));
  return v * c * c * c;
}

TEST(GridGaussianHostTest, ReleasedNoiseIsTheDiscreteGaussianOnTheGrid) {
  constexpr size_t kP = 100;
  constexpr int kCalls = 2000;
  constexpr double kSigma = 1024;  // noise std in grid steps
  const Real s = Real(0.75);       // noise std; grid g = 0.75/1024
  const Real bound = 1;
  std::vector<Real> v0(kP);
  double norm2 = 0;
  for (size_t i = 0; i < kP; ++i) {
    v0[i] = Real(std::sin(0.37 * double(i) + 0.1));
    norm2 += double(v0[i]) * double(v0[i]);
  }
  for (Real& x : v0) x = Real(double(x) / std::sqrt(norm2));  // ‖v0‖ = B
  std::vector<int32_t> r(kP);
  ASSERT_TRUE(RoundToGrid(bound, s, Span<const Real>(v0.data(), kP),
                          Span<int32_t>(r.data(), kP))
                  .ok());

  // Cells of 64 values over ±3.5σ; each outer cell also holds its tail.
  constexpr int64_t kCell = 64, kHalfCells = 56;
  std::vector<int64_t> counts(2 * kHalfCells, 0);
  auto cell_of = [&](int64_t k) -> size_t {
    int64_t c = (k >= 0 ? k / kCell : -((-k - 1) / kCell) - 1);
    if (c < -kHalfCells) c = -kHalfCells;
    if (c >= kHalfCells) c = kHalfCells - 1;
    return size_t(c + kHalfCells);
  };
  SeededDiscreteSampler seeded(777);
  std::vector<Real> v(kP);
  double sum = 0, sum2 = 0;
  int64_t n = 0;
  for (int call = 0; call < kCalls; ++call) {
    v = v0;
    ASSERT_TRUE(
        AddGridNoise(seeded.sampler(), bound, s, Span<Real>(v.data(), kP))
            .ok());
    for (size_t i = 0; i < kP; ++i) {
      const double steps = double(v[i]) / double(s) * 1024;
      ASSERT_EQ(steps, std::round(steps)) << "off the grid at " << i;
      const int64_t k = int64_t(steps) - r[i];
      sum += double(k);
      sum2 += double(k) * double(k);
      ++counts[cell_of(k)];
      ++n;
    }
  }
  // Exact cell probabilities: pmf ∝ exp(−k²/(2σ²)) summed over |k| ≤ 40σ.
  std::vector<double> p(counts.size(), 0);
  double z = 0;
  const int64_t kMax = int64_t(40 * kSigma);
  for (int64_t k = -kMax; k <= kMax; ++k) {
    const double w = std::exp(-double(k) * double(k) / (2 * kSigma * kSigma));
    z += w;
    p[cell_of(k)] += w;
  }
  double chi2 = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    const double e = p[c] / z * double(n);
    ASSERT_GT(e, 5.0) << c;
    chi2 += (double(counts[c]) - e) * (double(counts[c]) - e) / e;
  }
  const int dof = int(counts.size()) - 1;
  const double mean = sum / double(n), second = sum2 / double(n);
  const double var = kSigma * kSigma;
  std::printf(
      "grid noise: n = %lld, chi2 = %.1f on %d dof (critical %.1f), mean "
      "%.3f (se %.3f), E k^2 / sigma^2 = %.5f (se %.5f)\n",
      static_cast<long long>(n), chi2, dof, ChiSquareCritical(dof), mean,
      kSigma / std::sqrt(double(n)), second / var, std::sqrt(2.0 / double(n)));
  EXPECT_LT(chi2, ChiSquareCritical(dof));
  EXPECT_LT(std::fabs(mean), 5 * kSigma / std::sqrt(double(n)));
  EXPECT_LT(std::fabs(second / var - 1), 5 * std::sqrt(2.0 / double(n)));
}

}  // namespace
}  // namespace edgeadmm
