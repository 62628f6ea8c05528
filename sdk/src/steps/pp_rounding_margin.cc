#include "edgeadmm/pp_rounding_margin.h"

#include <cmath>
#include <limits>

#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

constexpr double kUnit = 0x1p-53;              // double unit roundoff
constexpr double kNormalError = 1024 * kUnit;  // one Box–Muller normal
constexpr double kShiftError = 1260 * kUnit;   // c·x in t = 1 + c·x, over c

double Up(double x) {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}

}  // namespace

Result<double> PpDecisionFlipProbability(size_t dim) {
  if (dim == 0) return Status::InvalidArgument();
  return Up(std::ldexp(1 + Up(std::sqrt(static_cast<double>(dim))), -36));
}

Result<double> PpNoiseRoundingBound(size_t dim, double alpha, double radius,
                                    double normal_norm, double real_roundoff) {
  if (dim == 0 || !IsPositive(alpha) || !IsPositive(radius) ||
      !IsPositive(normal_norm) || !IsPositive(real_roundoff)) {
    return Status::InvalidArgument();
  }
  const double d = static_cast<double>(dim);
  const double shape = d - 1.0 / 3.0;  // Marsaglia–Tsang's d'
  const double c = 1 / std::sqrt(9 * shape);
  // t = (r·α/d')^(1/3), the draw's 1 + c·x; Δt ≤ c·1260u + u.
  const double t = std::cbrt(radius * alpha / shape);
  const double dt = c * kShiftError + kUnit;
  const double radius_error = radius * (3 * dt / t + 8 * kUnit);
  const double normals_error =
      std::sqrt(d) * kNormalError + real_roundoff * normal_norm;
  const double direction_error = radius * 2 * normals_error / normal_norm;
  const double arithmetic_error = radius * ((d + 6) * kUnit + real_roundoff);
  const double bound =
      Up(2 * (radius_error + direction_error + arithmetic_error));
  if (!std::isfinite(bound)) return Status::InvalidArgument();
  return bound;
}

}  // namespace edgeadmm
