#include "edgeadmm/pp_draw_box.h"

#include <cmath>

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

constexpr double kUnit = 0x1p-53;              // double unit roundoff
constexpr double kNormalError = 1024 * kUnit;  // one Box–Muller normal
constexpr int kBisections = 200;

// −ln kPpDrawBoxTail, plus slack for the evaluation of the exponents below
// (values of a few hundred, evaluated to a few ulp).
double TailExponent() { return 40 * std::log(2.0) + 0x1p-20; }

// The smallest q > d found with q − d − d·ln(q/d) ≥ L (the exponent grows
// with q beyond d).
double GammaUpperQuantile(double d, double exponent) {
  const auto reaches = [&](double q) {
    return q - d - d * std::log(q / d) >= exponent;
  };
  double lo = d, hi = 2 * d + 2 * exponent;
  while (!reaches(hi)) hi *= 2;
  for (int i = 0; i < kBisections && hi - lo > hi * 0x1p-50; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (reaches(mid) ? hi : lo) = mid;
  }
  return hi;
}

// The largest x < d found with (d/2)(x/d − 1 − ln(x/d)) ≥ L, searched in
// z = ln(x/d) ∈ [−2L/d − 1, 0] (the exponent falls as z rises to 0).
double ChiSquareLowerQuantile(double d, double exponent) {
  const auto reaches = [&](double z) {
    return (d / 2) * (std::exp(z) - 1 - z) >= exponent;
  };
  double lo = -2 * exponent / d - 1, hi = 0;
  for (int i = 0; i < kBisections && hi - lo > 0x1p-50; ++i) {
    const double mid = lo + (hi - lo) / 2;
    (reaches(mid) ? lo : hi) = mid;
  }
  return d * std::exp(lo);
}

}  // namespace

Result<PpDrawBox> PpDrawBoxFor(size_t dim, double real_roundoff) {
  if (dim == 0 || !IsPositive(real_roundoff)) return Status::InvalidArgument();
  const double d = static_cast<double>(dim);
  PpDrawBox box;
  box.radius_quantile = GammaUpperQuantile(d, TailExponent());
  box.normal_floor = std::sqrt(ChiSquareLowerQuantile(d, TailExponent()));
  const double kept = (1 - (d + 2) * kUnit) * (1 - real_roundoff);
  box.min_normal_norm =
      kept * (box.normal_floor - std::sqrt(d) * kNormalError) * (1 - 0x1p-40);
  if (!std::isfinite(box.radius_quantile) ||
      !(box.min_normal_norm >= box.normal_floor / 2)) {
    return Status::InvalidArgument();
  }
  return box;
}

}  // namespace edgeadmm
