#include "edgeadmm/pp_output_perturbation.h"

#include <cmath>
#include <limits>

#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/pp_draw_box.h"
#include "edgeadmm/pp_rounding_margin.h"
#include "edgeadmm/vector_checks.h"

namespace edgeadmm {
namespace {

// One ulp up: every charged quantity rounds towards the safe side.
double Up(double x) {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}

bool NonNegativeFinite(double x) { return std::isfinite(x) && x >= 0; }

}  // namespace

Result<double> PpOutputSensitivity(double radius, double noise_std,
                                   size_t dim) {
  if (!IsPositive(radius) || !IsPositive(noise_std) || dim == 0) {
    return Status::InvalidArgument();
  }
  const double grid = std::ldexp(noise_std, -static_cast<int>(kNoiseGridBits));
  const double rounding =
      Up(Up(grid * Up(std::sqrt(static_cast<double>(dim)))) *
         kPpGridRoundingSlack);
  const double sensitivity = Up(Up(2 * radius) + rounding);
  if (!std::isfinite(sensitivity)) return Status::InvalidArgument();
  return sensitivity;
}

Result<double> PpOutputZcdp(double radius, double noise_std, size_t dim) {
  EDGEADMM_TRY_ASSIGN(const double sensitivity,
                      PpOutputSensitivity(radius, noise_std, dim));
  const double ratio = Up(sensitivity / noise_std);
  const double rho = Up(Up(ratio * ratio) / 2);
  if (!std::isfinite(rho)) return Status::InvalidArgument();
  return rho;
}

Result<double> PpSamplerTotalVariation(size_t dim) {
  // Skipped uniforms, plus 2 expected attempts whose decisions may differ
  // from the ideal run's under rounding (pp_rounding_margin.h), plus a
  // first draw outside the certified box (pp_draw_box.h).
  EDGEADMM_TRY_ASSIGN(const double flip, PpDecisionFlipProbability(dim));
  return Up(Up(Up(std::ldexp(2 * static_cast<double>(dim) + 8, -1022)) +
               Up(2 * flip)) +
            2 * kPpDrawBoxTail);
}

Result<PpPrivacy> PpApproxDp(double pure, double rho, double tv, double delta) {
  if (!NonNegativeFinite(pure) || !NonNegativeFinite(rho) ||
      !NonNegativeFinite(tv) || !(delta > 0 && delta < 1)) {
    return Status::InvalidArgument();
  }
  // RDP D_α ≤ pure + αρ; ε(α) = pure + αρ + ln(1/δ)/(α − 1) is smallest at
  // α = 1 + √(ln(1/δ)/ρ): pure + ρ + 2√(ρ ln(1/δ)).
  const double log_inverse_delta = Up(-std::log(delta));
  PpPrivacy out;
  out.epsilon =
      Up(Up(pure + rho) + Up(2 * Up(std::sqrt(Up(rho * log_inverse_delta)))));
  const double tail = Up(Up(1 + Up(std::exp(out.epsilon))) * tv);
  out.delta = std::fmin(1.0, Up(delta + tail));
  if (!std::isfinite(out.epsilon) || std::isnan(out.delta)) {
    return Status::InvalidArgument();
  }
  return out;
}

}  // namespace edgeadmm
