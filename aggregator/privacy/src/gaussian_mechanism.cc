#include "edgeadmm/privacy/gaussian_mechanism.h"

#include "checks.h"

namespace edgeadmm::privacy {

host::ErrorOr<double> GaussianRdp(double alpha, double noise_multiplier) {
  EDGEADMM_HOST_TRY(internal::CheckOrder(alpha));
  EDGEADMM_HOST_TRY(
      internal::CheckPositive("noise multiplier", noise_multiplier));
  return alpha / (2.0 * noise_multiplier * noise_multiplier);
}

}  // namespace edgeadmm::privacy
