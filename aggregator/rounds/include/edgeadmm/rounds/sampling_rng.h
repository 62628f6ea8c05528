// SamplingRng: the aggregator's random source (SDK Drbg, CTR_DRBG-AES-256)
// for secret cohorts and trusted-aggregator noise.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/result.h"
#include "edgeadmm/rounds/entropy.h"

namespace edgeadmm::rounds {

// Also the server-side noise of a round (algorithms::RoundNoise).
class SamplingRng final : public algorithms::RoundNoise {
 public:
  // Seeded from the kernel CSPRNG (seed == 0) or deterministically from
  // `seed` (tests, reference runs). UNAVAILABLE without entropy.
  static Result<std::unique_ptr<SamplingRng>> Create(uint64_t seed);

  // Uniform in (0, 1) from 53 bits. UNAVAILABLE if the DRBG fails.
  Result<double> Uniform01();
  // Uniform integer in [0, bound), bound >= 1, by rejection (no modulo bias).
  Result<uint64_t> UniformBelow(uint64_t bound);
  // v_i += N(0, stddev²) for every i. INVALID_ARGUMENT for a bad stddev.
  Status AddNoise(double stddev, std::vector<double>& v) override;

 private:
  explicit SamplingRng(uint64_t seed) : seeded_entropy_(seed) {}
  KernelEntropy kernel_entropy_;
  SeededEntropy seeded_entropy_;
  Drbg drbg_;
  std::unique_ptr<GaussianSampler> gaussian_;
};

}  // namespace edgeadmm::rounds
