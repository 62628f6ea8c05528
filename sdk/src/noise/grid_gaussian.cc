#include "edgeadmm/grid_gaussian.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "wide_uint.h"

namespace edgeadmm {
namespace {

constexpr double kGridScale = static_cast<double>(1u << kNoiseGridBits);

// One ulp up / down: the charged quantities round towards the safe side.
double Up(double x) {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}
double Down(double x) { return std::nextafter(x, 0.0); }  // x > 0

wide::Uint128 Add(wide::Uint128 a, wide::Uint128 b) {
  wide::Uint128 sum;
  sum.lo = a.lo + b.lo;
  sum.hi = a.hi + b.hi + (sum.lo < a.lo ? 1u : 0u);
  return sum;
}

wide::Uint128 Sub(wide::Uint128 a, wide::Uint128 b) {  // a ≥ b
  wide::Uint128 diff;
  diff.lo = a.lo - b.lo;
  diff.hi = a.hi - b.hi - (a.lo < b.lo ? 1u : 0u);
  return diff;
}

bool Greater(wide::Uint128 a, wide::Uint128 b) {
  return a.hi != b.hi ? a.hi > b.hi : a.lo > b.lo;
}

// |r_i| and bound/g stay below 2^30, so each r_i is an int32.
constexpr double kMaxBoundSteps = 0x1p30;

// K = ⌊(b + √p/2)²⌋ for b = bound/g < 2^30 (b + √p/2 in double), as a
// 128-bit integer (a double below 2^121 splits exactly into hi·2^64 + lo).
wide::Uint128 SquaredBound(double bound_steps, size_t dim) {
  const double reach = bound_steps + std::sqrt(static_cast<double>(dim)) / 2;
  // reach² = square + error exactly (fma); K = ⌊reach²⌋, one less when the
  // rounded square is an integer above the exact one.
  const double square = reach * reach;
  double k = std::floor(square);
  if (k == square && std::fma(reach, reach, -square) < 0) k -= 1;
  const double two64 = 18446744073709551616.0;
  wide::Uint128 out;
  out.hi = static_cast<uint64_t>(std::floor(k / two64));
  out.lo = static_cast<uint64_t>(k - static_cast<double>(out.hi) * two64);
  return out;
}

uint64_t Square(int32_t x) {
  const uint64_t m = x < 0 ? uint64_t{0} - static_cast<uint64_t>(int64_t{x})
                           : static_cast<uint64_t>(x);
  return m * m;
}

// Where r lives: a caller's int32 array (RoundToGrid), or v_i's own bytes
// between steps 1 and 3 (AddGridNoise: an int32 fits in a float or a
// double, so no buffer and no heap).
struct IntSlots {
  Span<int32_t> r;
  size_t size() const { return r.size(); }
  int32_t Get(size_t i) const { return r[i]; }
  void Set(size_t i, int32_t x) { r[i] = x; }
};
struct RealSlots {
  Span<Real> v;
  size_t size() const { return v.size(); }
  int32_t Get(size_t i) const {
    int32_t x;
    std::memcpy(&x, &v[i], sizeof(x));
    return x;
  }
  void Set(size_t i, int32_t x) { std::memcpy(&v[i], &x, sizeof(x)); }
};

// Step 2 of grid_gaussian.h: the largest |r_i| steps towards zero until
// Σ r_i² ≤ K. Each pass lowers the sum by 2|r_i| − 1 ≥ 1, so it ends; it
// runs only after floating-point error (a few passes at most).
template <typename Slots>
void Guard(Slots& r, wide::Uint128 k) {
  wide::Uint128 sum;
  for (size_t i = 0; i < r.size(); ++i) {
    sum = Add(sum, wide::Uint128{0, Square(r.Get(i))});
  }
  while (Greater(sum, k)) {
    size_t largest = 0;
    for (size_t i = 1; i < r.size(); ++i) {
      if (Square(r.Get(i)) > Square(r.Get(largest))) largest = i;
    }
    const int32_t x = r.Get(largest);
    const int32_t shrunk = x > 0 ? x - 1 : x + 1;
    sum = Sub(sum, wide::Uint128{0, Square(x) - Square(shrunk)});
    r.Set(largest, shrunk);
  }
}

// Steps 1–2. `v` and `r` may share storage (RealSlots over v): v_i is read
// before r_i is written.
template <typename Slots>
Status Round(Real bound, Real noise_std, Span<const Real> v, Slots& r) {
  if (!std::isfinite(noise_std) || !(noise_std > 0) || !(bound > 0)) {
    return Status::InvalidArgument();
  }
  for (Real x : v) {
    if (!std::isfinite(x)) return Status::InvalidArgument();
  }
  // Grid steps: v/g = (v/s)·2^bits (the scaling by 2^bits is exact).
  const double s = static_cast<double>(noise_std);
  const double bound_steps = static_cast<double>(bound) / s * kGridScale;
  const bool guarded = std::isfinite(bound_steps);
  if (guarded && !(bound_steps < kMaxBoundSteps)) return Status::OutOfRange();
  for (size_t i = 0; i < v.size(); ++i) {
    // Nearest, ties away from zero.
    const double steps = std::round(static_cast<double>(v[i]) / s * kGridScale);
    if (!(std::fabs(steps) < kMaxBoundSteps)) return Status::OutOfRange();
    r.Set(i, static_cast<int32_t>(steps));
  }
  if (guarded) Guard(r, SquaredBound(bound_steps, v.size()));
  return Status::Ok();
}

}  // namespace

double GridSensitivity(double bound, double noise_std, size_t dim) {
  const double half_root = std::sqrt(static_cast<double>(dim)) / 2;
  const double rounding = noise_std / kGridScale * half_root;
  return rounding > 0 ? Up(bound + Up(rounding)) : bound;
}

double GridNoiseMultiplier(double nu, size_t dim) {
  if (!(nu > 0)) return 0.0;
  const double half_root = std::sqrt(static_cast<double>(dim)) / 2;
  const double rounding = nu * half_root / kGridScale;
  return rounding > 0 ? Down(nu / Up(1 + Up(rounding))) : nu;
}

Status RoundToGrid(Real bound, Real noise_std, Span<const Real> v,
                   Span<int32_t> r) {
  if (r.size() != v.size()) return Status::InvalidArgument();
  IntSlots slots{r};
  return Round(bound, noise_std, v, slots);
}

Result<DiscreteGaussian> GridNoise() {
  return DiscreteGaussian::FromStddev(uint64_t{1} << kNoiseGridBits, 1);
}

Result<int32_t> GridPoint(Real value, Real noise_std) {
  if (!std::isfinite(noise_std) || !(noise_std > 0) || !std::isfinite(value)) {
    return Status::InvalidArgument();
  }
  // As Round: v/g = (v/s)·2^bits, nearest, ties away from zero.
  const double steps = std::round(static_cast<double>(value) /
                                  static_cast<double>(noise_std) * kGridScale);
  if (!(std::fabs(steps) < kMaxBoundSteps)) return Status::OutOfRange();
  return static_cast<int32_t>(steps);
}

Result<uint64_t> GridBallBound(Real radius, Real noise_std) {
  if (!std::isfinite(noise_std) || !(noise_std > 0) || !std::isfinite(radius) ||
      radius < 0) {
    return Status::InvalidArgument();
  }
  if (radius == 0) return uint64_t{0};
  // radius/g rounded down (one ulp below the rounded quotient), so that
  // K ≤ (radius/g)² whatever the rounding of the division.
  // Capped at the grid's range (a tighter bound, still within radius).
  double steps =
      Down(static_cast<double>(radius) / static_cast<double>(noise_std)) *
      kGridScale;
  if (!(steps < kMaxBoundSteps)) steps = kMaxBoundSteps - 1;
  return SquaredBound(steps, 0).lo;  // < 2^60: hi = 0
}

Real GridValue(int64_t n, Real noise_std) {
  return static_cast<Real>(
      static_cast<double>(noise_std) *
      std::ldexp(static_cast<double>(n), -static_cast<int>(kNoiseGridBits)));
}

Status AddGridNoise(DiscreteGaussianSampler& sampler, Real bound,
                    Real noise_std, Span<Real> v) {
#ifdef EDGEADMM_AUDIT_NOISELESS
  // Audit-only build (edgeadmm-fleet-noiseless, tools/fleet): the noise is
  // claimed and charged but not added, so the privacy audit must detect a
  // violation (docs/privacy.md, "Empirical privacy audit"). Never defined
  // for the SDK library itself.
  if (!std::isfinite(noise_std) || !(noise_std > 0) || !(bound > 0)) {
    return Status::InvalidArgument();
  }
  (void)sampler;
  return Status::Ok();
#endif
  RealSlots r{v};
  EDGEADMM_TRY(
      Round(bound, noise_std, Span<const Real>(v.data(), v.size()), r));
  // σ/g = 2^bits in grid units, whatever s.
  EDGEADMM_TRY_ASSIGN(
      const DiscreteGaussian noise,
      DiscreteGaussian::FromStddev(uint64_t{1} << kNoiseGridBits, 1));
  // Steps 3–4: n = r + k (|k| ≤ max_magnitude < 2^53), v = s·(n·2^-bits),
  // a function of n and s only.
  const double s = static_cast<double>(noise_std);
  for (size_t i = 0; i < v.size(); ++i) {
    EDGEADMM_TRY_ASSIGN(const int64_t k, sampler.Sample(noise));
    const int64_t n = int64_t{r.Get(i)} + k;
    v[i] = static_cast<Real>(s * std::ldexp(static_cast<double>(n),
                                            -static_cast<int>(kNoiseGridBits)));
  }
  return Status::Ok();
}

}  // namespace edgeadmm
