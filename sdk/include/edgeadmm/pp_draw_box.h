// The certified box of pp-admm's Gamma-norm draw (docs/privacy.md,
// "pp-admm", refusals). The step bounds the draw's rounding at the box's
// corner, not at the draw itself, so its rounding margin, its gradient
// budget and every refusal depend only on the public transcript and the
// schedule; a draw outside the box is drawn again.
//
// For the ideal draw ε* = r*·g*/‖g*‖ (r* ~ Gamma(d, 1/α), g* ~ N(0, I_d)),
// Chernoff bounds from the moment generating functions give
//   P(r* > q/α)   ≤ exp(−(q − d − d·ln(q/d)))            for q > d,
//   P(‖g*‖² < x)  ≤ exp(−(d/2)·(x/d − 1 − ln(x/d)))       for x < d,
// and q and g₀ = √x are chosen so that each is at most kPpDrawBoxTail. The
// box admits a computed draw with radius ≤ (1 + 2^-30)·q/α and ‖ĝ‖ ≥ the
// least value an ideal ‖g*‖ ≥ g₀ can be computed as. Under the rounding
// model of pp_rounding_margin.h, r* ≤ q/α gives a computed radius at most
// (q/α)·(1 + Δt)³·(1 + 8u) (t* ≤ (q/d')^{1/3} and q/d' ≥ 1), far inside
// the 2^-30; so an ideal draw inside the strict box gives a computed draw
// inside the admitted one. The first computed draw is therefore used, and
// coupled with the ideal one, except with probability 2·kPpDrawBoxTail
// beyond the sampler's own total variation; PpSamplerTotalVariation charges
// both.
#pragma once

#include <cstddef>

#include "edgeadmm/norm_gamma_sampler.h"
#include "edgeadmm/result.h"

namespace edgeadmm {

// Probability bound of each of the box's two tails.
inline constexpr double kPpDrawBoxTail = 0x1p-40;

struct PpDrawBox {
  double radius_quantile = 0;  // q
  double normal_floor = 0;     // g₀
  // (1 − (d + 2)u)(1 − u_R)(g₀ − √d·1024u)·(1 − 2^-40): the least computed
  // ‖ĝ‖ of an ideal ‖g*‖ ≥ g₀ (Box–Muller normals within 1024u each, their
  // rounding to Real, the norm's sum in double).
  double min_normal_norm = 0;

  // The largest radius the box admits at rate α.
  double MaxRadius(double alpha) const {
    return radius_quantile * (1 + 0x1p-30) / alpha;
  }
  bool Admits(double alpha, const NormGammaDraw& draw) const {
    return draw.radius <= MaxRadius(alpha) &&
           draw.normal_norm >= min_normal_norm;
  }
};

// The box for dimension `dim`, normals rounded to a type of unit roundoff
// `real_roundoff` (u_R). INVALID_ARGUMENT for dim 0, a non-positive u_R, or
// when ‖ĝ‖'s rounding could take an ideal ‖g*‖ ≥ g₀ below g₀/2.
Result<PpDrawBox> PpDrawBoxFor(size_t dim, double real_roundoff);

}  // namespace edgeadmm
