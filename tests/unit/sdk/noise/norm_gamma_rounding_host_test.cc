// The Gamma-norm draw against the same algorithm in long double (64-bit
// significand on x86-64) from the same uniforms: the distance stays within
// PpNoiseRoundingBound, and the bound is tight enough to matter. Host only
// (on the MCU long double is double).
#include <cmath>
#include <vector>

#include "edgeadmm/norm_gamma_sampler.h"
#include "edgeadmm/pp_rounding_margin.h"
#include "gtest/gtest.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

// Box–Muller and Marsaglia–Tsang as in the SDK, in long double, consuming
// the sampler's uniforms in the same order (with the same spare).
class LongDoubleDraw {
 public:
  explicit LongDoubleDraw(GaussianSampler& s) : s_(s) {}

  long double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const long double u1 = *s_.Uniform01();
    const long double u2 = *s_.Uniform01();
    const long double radius = std::sqrt(-2.0L * std::log(u1));
    const long double angle = 2 * 3.141592653589793238462643383279503L * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

  long double Gamma(long double shape) {
    const long double d = shape - 1.0L / 3;
    const long double c = 1 / std::sqrt(9 * d);
    while (true) {
      const long double x = Normal();
      const long double t = 1 + c * x;
      if (t <= 0) continue;
      const long double v = t * t * t;
      const long double u = *s_.Uniform01();
      if (u < 1 - 0.0331L * x * x * x * x) return d * v;
      if (std::log(u) < 0.5L * x * x + d * (1 - v + std::log(v))) return d * v;
    }
  }

  // ε* = r·g/‖g‖ for dimension `dim` and rate `alpha`.
  std::vector<long double> Noise(size_t dim, long double alpha) {
    std::vector<long double> g(dim);
    long double norm2 = 0;
    for (long double& x : g) {
      x = Normal();
      norm2 += x * x;
    }
    const long double factor =
        Gamma(static_cast<long double>(dim)) / alpha / std::sqrt(norm2);
    for (long double& x : g) x *= factor;
    return g;
  }

 private:
  GaussianSampler& s_;
  bool has_spare_ = false;
  long double spare_ = 0;
};

TEST(NormGammaRoundingHostTest, DrawIsWithinItsRoundingBoundOfTheIdeal) {
  const double unit = std::numeric_limits<Real>::epsilon() / 2;
  for (size_t dim : {size_t{1}, size_t{2}, size_t{5}, size_t{123}}) {
    const double alpha = 3;
    SeededSampler real_run(77 + dim), ideal_run(77 + dim);
    LongDoubleDraw ideal(ideal_run.sampler());
    double worst_ratio = 0;
    for (int i = 0; i < 300; ++i) {
      std::vector<Real> out(dim);
      NormGammaDraw draw;
      ASSERT_TRUE(SampleNormGammaNoise(real_run.sampler(), alpha,
                                       Span<Real>(out.data(), dim), &draw)
                      .ok());
      const std::vector<long double> exact = ideal.Noise(dim, alpha);
      long double distance2 = 0;
      for (size_t c = 0; c < dim; ++c) {
        const long double diff = static_cast<long double>(out[c]) - exact[c];
        distance2 += diff * diff;
      }
      const double distance = static_cast<double>(std::sqrt(distance2));
      auto bound =
          PpNoiseRoundingBound(dim, alpha, draw.radius, draw.normal_norm, unit);
      ASSERT_TRUE(bound.ok());
      EXPECT_LE(distance, *bound) << dim << " " << i;
      worst_ratio = std::fmax(worst_ratio, distance / *bound);
      // Not vacuous: far below the γ of the build (1e-6 double, 1e-4
      // float32) at these norms (r ≈ d/α).
      EXPECT_LT(*bound, 1e-9 * (unit / 0x1p-53) * (1 + draw.radius)) << dim;
    }
    // The rounding is real: the double draw is not the long double one.
    EXPECT_GT(worst_ratio, 0.0) << dim;
  }
}

TEST(NormGammaRoundingHostTest, BoundRefusesBadInputAndGrowsWithTheDraw) {
  EXPECT_FALSE(PpNoiseRoundingBound(0, 3, 1, 1, 0x1p-53).ok());
  EXPECT_FALSE(PpNoiseRoundingBound(5, 0, 1, 1, 0x1p-53).ok());
  EXPECT_FALSE(PpNoiseRoundingBound(5, 3, 0, 1, 0x1p-53).ok());
  EXPECT_FALSE(PpNoiseRoundingBound(5, 3, 1, -1, 0x1p-53).ok());
  EXPECT_FALSE(PpNoiseRoundingBound(5, 3, 1, 1, NAN).ok());
  const double base = *PpNoiseRoundingBound(5, 3, 2, 2, 0x1p-53);
  EXPECT_GT(*PpNoiseRoundingBound(5, 3, 20, 2, 0x1p-53), base);
  // Short normals make the direction less certain.
  EXPECT_GT(*PpNoiseRoundingBound(5, 3, 2, 1e-3, 0x1p-53), 100 * base);
  // float32 rounding of the normals and of ε dominates a double build's.
  EXPECT_GT(*PpNoiseRoundingBound(5, 3, 2, 2, 0x1p-24), 1e5 * base);
  EXPECT_FALSE(PpDecisionFlipProbability(0).ok());
  // 2^-36·(1 + √4), rounded up by at most an ulp.
  EXPECT_GE(*PpDecisionFlipProbability(4), 3 * 0x1p-36);
  EXPECT_LE(*PpDecisionFlipProbability(4), 3 * 0x1p-36 * (1 + 1e-15));
}

}  // namespace
}  // namespace edgeadmm
