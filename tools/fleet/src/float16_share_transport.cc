#include "edgeadmm/fleet/float16_share_transport.h"

#include <algorithm>
#include <cmath>

namespace edgeadmm::fleet {

double RoundToFloat16(double v) {
  if (!std::isfinite(v)) return v;
  constexpr double kMax = 65504.0;  // (2 − 2^-10)·2^15
  const double a = std::fabs(v);
  if (a >= kMax) return std::copysign(kMax, v);  // saturate, never ±inf
  // IEEE binary16: 10 fraction bits; exponent ≥ −14, below it the
  // subnormal grid 2^-24. a = m·2^k, m in [0.5, 1) → spacing 2^(k−1−10).
  int k = 0;
  std::frexp(a, &k);
  const int exponent = std::max(k - 1, -14);
  const double quantum = std::ldexp(1.0, exponent - 10);
  // nearbyint rounds half to even in the default rounding mode.
  const double r = std::nearbyint(a / quantum) * quantum;
  return std::copysign(std::min(r, kMax), v);
}

void Float16ShareTransport::Rewrite(wire::DecodedUpdate& update) {
  for (Real& v : update.vector) v = RoundToFloat16(v);
}

}  // namespace edgeadmm::fleet
