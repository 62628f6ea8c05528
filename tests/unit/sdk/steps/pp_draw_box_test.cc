// PpDrawBoxFor: the box's two Chernoff quantiles hold their tails, checked
// against the exact Gamma and χ² tails computed independently here.
#include "edgeadmm/pp_draw_box.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

// P(Gamma(d, 1) > q) = e^{-q} Σ_{k<d} q^k/k! for integer d, summed in long
// double from the logarithms of the terms.
long double GammaUpperTail(int d, long double q) {
  long double sum = 0;
  for (int k = 0; k < d; ++k) {
    sum += std::exp(k * std::log(q) - q - std::lgamma(k + 1.0L));
  }
  return sum;
}

// P(χ²_d < x) = P(d/2, x/2), the regularised lower incomplete gamma, by its
// series e^{-y} y^a/Γ(a+1) · Σ_n y^n/((a+1)···(a+n)).
long double ChiSquareLowerTail(int d, long double x) {
  const long double a = d / 2.0L, y = x / 2;
  long double term = 1, sum = 1;
  for (int n = 1; n < 10000 && term > 1e-30L * sum; ++n) {
    term *= y / (a + n);
    sum += term;
  }
  return std::exp(a * std::log(y) - y - std::lgamma(a + 1)) * sum;
}

TEST(PpDrawBoxTest, TailsHoldAndAreNotFarFromTight) {
  for (double roundoff : {0x1p-53, 0x1p-24}) {
    for (int d : {1, 2, 5, 10, 123, 1000}) {
      auto box = PpDrawBoxFor(static_cast<size_t>(d), roundoff);
      ASSERT_TRUE(box.ok()) << d;
      const long double upper = GammaUpperTail(d, box->radius_quantile);
      const long double lower = ChiSquareLowerTail(
          d, static_cast<long double>(box->normal_floor) * box->normal_floor);
      EXPECT_LE(upper, kPpDrawBoxTail) << d;
      EXPECT_LE(lower, kPpDrawBoxTail) << d;
      // Chernoff loses at most a polynomial factor in d here.
      EXPECT_GE(upper, 1e-3 * kPpDrawBoxTail) << d;
      EXPECT_GE(lower, 1e-3 * kPpDrawBoxTail) << d;
    }
  }
}

TEST(PpDrawBoxTest, AdmitsExactlyTheBox) {
  auto box = PpDrawBoxFor(5, 0x1p-53);
  ASSERT_TRUE(box.ok());
  const double alpha = 3;
  const double r = box->MaxRadius(alpha), g = box->min_normal_norm;
  EXPECT_GT(r, box->radius_quantile / alpha);
  EXPECT_LT(r, box->radius_quantile / alpha * (1 + 1e-8));
  EXPECT_LT(g, box->normal_floor);
  EXPECT_GT(g, box->normal_floor * (1 - 1e-8));
  EXPECT_TRUE(box->Admits(alpha, NormGammaDraw{r, g}));
  EXPECT_TRUE(box->Admits(alpha, NormGammaDraw{r / 2, 10 * g}));
  EXPECT_FALSE(box->Admits(alpha, NormGammaDraw{r * (1 + 1e-15), g}));
  EXPECT_FALSE(box->Admits(alpha, NormGammaDraw{r, g * (1 - 1e-15)}));
}

TEST(PpDrawBoxTest, RefusesBadInput) {
  EXPECT_EQ(PpDrawBoxFor(0, 0x1p-53).status(), Status::InvalidArgument());
  EXPECT_EQ(PpDrawBoxFor(5, 0).status(), Status::InvalidArgument());
  EXPECT_EQ(PpDrawBoxFor(5, NAN).status(), Status::InvalidArgument());
  // A unit roundoff so coarse that ‖ĝ‖'s rounding could halve it.
  EXPECT_EQ(PpDrawBoxFor(5, 0.6).status(), Status::InvalidArgument());
}

}  // namespace
}  // namespace edgeadmm
