// SamplingRng: the aggregator's random source (SDK Drbg, CTR_DRBG-AES-256)
// for secret cohorts and trusted-aggregator noise.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "edgeadmm/algorithms/algorithm.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
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
  // Fills `out` with DRBG bytes (public seeds). The DRBG's errors.
  Status Fill(ByteSpan out) { return drbg_.Generate(out); }
  // v on the grid g = stddev·2^-kSumGridBits (nearest) plus the exact
  // discrete Gaussian g·N_Z(0, 4^kSumGridBits), std `stddev`
  // (algorithms/sum_grid.h). INVALID_ARGUMENT for a bad stddev or a
  // non-finite v; OUT_OF_RANGE if some |v_i|/g ≥ 2^52; DRBG errors passed
  // on (v then partly noised: discard it).
  Status AddNoise(double stddev, std::vector<double>& v) override;

 private:
  explicit SamplingRng(uint64_t seed) : seeded_entropy_(seed) {}
  KernelEntropy kernel_entropy_;
  SeededEntropy seeded_entropy_;
  Drbg drbg_;
  std::unique_ptr<GaussianSampler> gaussian_;  // Uniform01 only
  std::unique_ptr<DiscreteGaussianSampler> discrete_;
};

}  // namespace edgeadmm::rounds
