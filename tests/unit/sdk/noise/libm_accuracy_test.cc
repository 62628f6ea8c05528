// The rounding model of pp-admm's Gamma-norm noise (pp_rounding_margin.h)
// assumes log, sin and cos within 2 ulp. This checks the C library the test
// is built with (glibc on Linux, newlib on the MCU) at the inputs the
// Box–Muller sampler gives them, against 60-digit references
// (make_libm_reference.py, run at build time). Portable.
#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "libm_reference.inc"

namespace edgeadmm {
namespace {

// The model's bound, in units in the last place of the exact value.
constexpr double kAssumedUlps = 2;

// |f − (hi + lo)| in ulps of hi; f − hi is exact (Sterbenz) when f is
// within a factor 2 of hi.
double UlpError(double f, const LibmCase& c) {
  const double magnitude = std::fabs(c.hi);
  const double ulp =
      std::nextafter(magnitude, std::numeric_limits<double>::infinity()) -
      magnitude;
  return std::fabs((f - c.hi) - c.lo) / ulp;
}

template <size_t kCount>
double WorstUlps(const LibmCase (&cases)[kCount], double (*f)(double)) {
  double worst = 0;
  for (const LibmCase& c : cases) worst = std::fmax(worst, UlpError(f(c.x), c));
  return worst;
}

double Log(double x) { return std::log(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }

TEST(LibmAccuracyTest, LogSinCosWithinTheAssumedUlps) {
  const double log_ulps = WorstUlps(kLogCases, Log);
  const double sin_ulps = WorstUlps(kSinCases, Sin);
  const double cos_ulps = WorstUlps(kCosCases, Cos);
  EXPECT_LE(log_ulps, kAssumedUlps);
  EXPECT_LE(sin_ulps, kAssumedUlps);
  EXPECT_LE(cos_ulps, kAssumedUlps);
}

// The checker sees an error: a function off by 3 ulps fails it.
double LogOffByThreeUlps(double x) {
  double y = std::log(x);
  for (int i = 0; i < 3; ++i) {
    y = std::nextafter(y, std::numeric_limits<double>::infinity());
  }
  return y;
}

TEST(LibmAccuracyTest, TheCheckerSeesThreeUlps) {
  EXPECT_GT(WorstUlps(kLogCases, LogOffByThreeUlps), kAssumedUlps);
}

}  // namespace
}  // namespace edgeadmm
