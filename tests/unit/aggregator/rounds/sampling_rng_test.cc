// The gateway's noise (SamplingRng::AddNoise, algorithms/sum_grid.h): 2·10^5
// coordinates of a fixed non-grid sum noised with std s = 2 (grid g =
// 2/2^15). Every released value is on the grid, and its offset from the
// sum's nearest grid point, k = released/g − round(sum/g), follows
// N_Z(0, 2^30): chi-square on cells of 4,096 values against the exact pmf,
// the mean within 5 standard errors of 0 and the second moment within 5 of
// σ². A continuous Gaussian would fail the on-grid check. Seeded DRBG.
#include "edgeadmm/rounds/sampling_rng.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace edgeadmm::rounds {
namespace {

TEST(SamplingRngTest, GatewayNoiseIsTheDiscreteGaussianOnTheGrid) {
  constexpr size_t kP = 20000;
  constexpr int kCalls = 10;
  constexpr double kStd = 2.0, kSigma = 32768;  // kSigma: std in grid steps
  auto rng = SamplingRng::Create(19);
  ASSERT_TRUE(rng.ok());
  std::vector<double> sum(kP);
  for (size_t i = 0; i < kP; ++i) sum[i] = 3 * std::sin(0.37 * double(i));
  // Cells of 4,096 values over ±3.5σ; each outer cell also holds its tail.
  constexpr int64_t kCell = 4096, kHalfCells = 28;
  std::vector<int64_t> counts(2 * kHalfCells, 0);
  auto cell_of = [&](int64_t k) -> size_t {
    int64_t c = k >= 0 ? k / kCell : -((-k - 1) / kCell) - 1;
    c = std::max(-kHalfCells, std::min(kHalfCells - 1, c));
    return size_t(c + kHalfCells);
  };
  double first = 0, second = 0;
  int64_t n = 0;
  for (int call = 0; call < kCalls; ++call) {
    std::vector<double> v = sum;
    ASSERT_EQ((*rng)->AddNoise(kStd, v), Status::Ok());
    for (size_t i = 0; i < kP; ++i) {
      const double steps = v[i] / kStd * kSigma;
      ASSERT_EQ(steps, std::round(steps)) << "off the grid at " << i;
      const double k = steps - std::round(sum[i] / kStd * kSigma);
      first += k;
      second += k * k;
      ++counts[cell_of(int64_t(k))];
      ++n;
    }
  }
  std::vector<double> mass(counts.size(), 0);
  double z = 0;
  for (int64_t k = -int64_t(40 * kSigma); k <= int64_t(40 * kSigma); ++k) {
    const double w = std::exp(-double(k) * double(k) / (2 * kSigma * kSigma));
    z += w;
    mass[cell_of(k)] += w;
  }
  double chi2 = 0;
  for (size_t c = 0; c < counts.size(); ++c) {
    const double e = mass[c] / z * double(n);
    chi2 += (double(counts[c]) - e) * (double(counts[c]) - e) / e;
  }
  // Upper 5-sigma point of χ² (Wilson–Hilferty) on cells − 1 dof.
  const double dof = double(counts.size()) - 1;
  const double w = 1 - 2 / (9 * dof) + 5 * std::sqrt(2 / (9 * dof));
  const double critical = dof * w * w * w;
  const double mean = first / double(n),
               ratio = second / double(n) / (kSigma * kSigma);
  std::printf(
      "gateway grid noise: n = %lld, chi2 = %.1f on %.0f dof "
      "(critical %.1f), mean %.3f, E k^2 / sigma^2 = %.5f\n",
      static_cast<long long>(n), chi2, dof, critical, mean, ratio);
  EXPECT_LT(chi2, critical);
  EXPECT_LT(std::fabs(mean), 5 * kSigma / std::sqrt(double(n)));
  EXPECT_LT(std::fabs(ratio - 1), 5 * std::sqrt(2.0 / double(n)));
}

TEST(SamplingRngTest, RefusesWhatTheGridCannotHold) {
  auto rng = SamplingRng::Create(19);
  ASSERT_TRUE(rng.ok());
  std::vector<double> v = {1.0};
  EXPECT_EQ((*rng)->AddNoise(0.0, v).code(), StatusCode::kInvalidArgument);
  v = {std::nan("")};
  EXPECT_EQ((*rng)->AddNoise(1.0, v).code(), StatusCode::kInvalidArgument);
  v = {0x1p50};  // 2^65 grid steps of g = 2^-15
  EXPECT_EQ((*rng)->AddNoise(1.0, v).code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace edgeadmm::rounds
