// Floating-point rounding of pp-admm's Gamma-norm noise and of the perturbed
// primal's centre, as a distance to the ideal (real-number) computation from
// the same uniforms (docs/privacy.md, "pp-admm", rounding). The step reserves
// these distances out of the output radius γ, so its release stays within γ
// of the ideal exact minimiser (Iyengar et al. 2019, Thm. 3.1 then applies).
//
// Model: u = 2^-53 (double); log, sin and cos within 2 ulp (the glibc
// manual's "Known Maximum Errors in Math Functions" lists at most 1 ulp for
// them on x86_64; newlib on the MCU is assumed to meet 2; both measured by
// sdk_libm_accuracy_test where the sampler uses them), sqrt correctly
// rounded (IEEE 754), every other operation one rounding. Box–Muller
// (gaussian_sampler.cc): |Δθ| ≤ 2π·2u, the cosine/sine within 14.6u, R
// within 3u relative, so a normal (R ≤ 37.64) is within 18.6·37.64·u < 1024u.
// Marsaglia–Tsang: t = 1 + c·x within c·1260u + u, v = t³ within 3Δt/t + 2u
// relative, r = d'·v/α within another 8u. The direction ĝ/‖ĝ‖ (normals
// rounded to Real, unit roundoff u_R) is within 2‖ĝ − g*‖/‖ĝ‖ of g*/‖g*‖,
// ‖ĝ − g*‖ ≤ √d·1024u + u_R‖ĝ‖; the normalisation and the final rounding
// add (d + 6)u + u_R relative. A factor 2 covers the second-order terms.
//
// A decision of the rejection loop (t ≤ 0, the squeeze, the log test) can
// differ between the two runs only when the ideal statistic is within its
// rounding error of the threshold; with U uniform and independent of x this
// has probability at most 2^-36·(1 + √d) per attempt (the log test dominates:
// e^h·3d'Δt/t ≤ 6.3·√d'·1260u since h ≤ 0), charged as total variation
// (PpSamplerTotalVariation).
#pragma once

#include <cstddef>

#include "edgeadmm/result.h"

namespace edgeadmm {

// Per-attempt probability that a rejection decision differs from the ideal
// run's: 2^-36·(1 + √d). INVALID_ARGUMENT for dim 0.
Result<double> PpDecisionFlipProbability(size_t dim);

// Bound on ‖ε_fp − ε*‖ for one Gamma-norm draw of dimension `dim` with rate
// `alpha`, computed norm `radius` (r) and Real normals of norm
// `normal_norm` (‖ĝ‖), under equal decisions; `real_roundoff` is u_R
// (2^-24 float, 2^-53 double). INVALID_ARGUMENT for dim 0 or non-positive
// or non-finite inputs; +inf is never returned as OK.
Result<double> PpNoiseRoundingBound(size_t dim, double alpha, double radius,
                                    double normal_norm, double real_roundoff);

}  // namespace edgeadmm
