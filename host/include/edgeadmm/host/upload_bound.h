// What an honest device's uploads can be (docs/security.md, "Upload bounds"):
// the gateway's acceptance rule, and the model the fleet's steering devices
// play against (tools/fleet, steering_transport.h).
// each upload is a signal of norm at most `signal` (what the step's clip
// implies) plus fresh Gaussian noise N(0, noise_stddev²·I_p). The judge
// refuses one upload above Norm(1, p) and an upload that takes the sum of a
// device's accepted uploads in the job above Norm(k, p).
#pragma once

#include <cstdint>
#include <limits>

namespace edgeadmm::host {

// The noise allowance, in standard deviations beyond √p: N(0, s²I_p) has a
// norm above s(√p + 10) with probability at most e^(−50) ≈ 2e−22.
inline constexpr double kNoiseTailSigmas = 10;

// s·(√p + kNoiseTailSigmas); 0 for s <= 0.
double NoiseNormAllowance(double stddev, int64_t p);

struct UploadBound {
  double signal = std::numeric_limits<double>::infinity();  // +inf: no bound
  double noise_stddev = 0;

  bool bounded() const {
    return signal < std::numeric_limits<double>::infinity();
  }
  // The largest norm of the sum of k honest uploads of length p but for
  // probability e^(−50): k·signal + √k·NoiseNormAllowance(noise_stddev, p).
  // The k noises are independent, so their sum is N(0, k·s²I_p).
  double Norm(int64_t k, int64_t p) const;
};

}  // namespace edgeadmm::host
