#include "edgeadmm/host/upload_bound.h"

#include <cmath>

namespace edgeadmm::host {

double NoiseNormAllowance(double stddev, int64_t p) {
  // ||η|| is s-Lipschitz in a standard normal vector and E||η|| <= s√p, so
  // P(||η|| >= s(√p + t)) <= exp(−t²/2) (Gaussian concentration).
  if (!(stddev > 0)) return 0.0;
  return stddev * (std::sqrt(static_cast<double>(p)) + kNoiseTailSigmas);
}

double UploadBound::Norm(int64_t k, int64_t p) const {
  const double uploads = static_cast<double>(k);
  return uploads * signal +
         std::sqrt(uploads) * NoiseNormAllowance(noise_stddev, p);
}

}  // namespace edgeadmm::host
