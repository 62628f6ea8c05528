#include "edgeadmm/rounds/sampling_rng.h"

#include <cmath>
#include <cstdlib>

#include "edgeadmm/algorithms/sum_grid.h"

namespace edgeadmm::rounds {
namespace {
constexpr char kPersonalization[] = "edgeadmm aggregator sampling";
}  // namespace

Result<std::unique_ptr<SamplingRng>> SamplingRng::Create(uint64_t seed) {
  std::unique_ptr<SamplingRng> rng(new SamplingRng(seed));
  EntropySource& entropy =
      seed == 0 ? static_cast<EntropySource&>(rng->kernel_entropy_)
                : rng->seeded_entropy_;
  const ConstByteSpan personalization(
      reinterpret_cast<const std::byte*>(kPersonalization),
      sizeof(kPersonalization) - 1);
  EDGEADMM_TRY(rng->drbg_.Init(entropy, personalization));
  rng->gaussian_ = std::make_unique<GaussianSampler>(rng->drbg_);
  rng->discrete_ = std::make_unique<DiscreteGaussianSampler>(rng->drbg_);
  return rng;
}

Result<double> SamplingRng::Uniform01() { return gaussian_->Uniform01(); }

Result<uint64_t> SamplingRng::UniformBelow(uint64_t bound) {
  if (bound == 0) return Status::InvalidArgument();
  // Largest multiple of `bound` that fits: draws at or above it are redrawn.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (;;) {
    std::byte bytes[8];
    EDGEADMM_TRY(drbg_.Generate(ByteSpan(bytes)));
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i) {
      word |= static_cast<uint64_t>(bytes[i]) << (8 * i);
    }
    if (word < limit) return word % bound;
  }
}

Status SamplingRng::AddNoise(double stddev, std::vector<double>& v) {
  // sum_grid.h: r = round(v/g), n = r + k, k ~ N_Z(0, 4^bits), then
  // v = s·(n·2^-bits), a function of the integers n and public s only.
  EDGEADMM_TRY(algorithms::RoundSumToGrid(stddev, v));
  EDGEADMM_TRY_ASSIGN(
      const DiscreteGaussian noise,
      DiscreteGaussian::FromStddev(uint64_t{1} << algorithms::kSumGridBits, 1));
  const int bits = static_cast<int>(algorithms::kSumGridBits);
  for (double& x : v) {
    EDGEADMM_TRY_ASSIGN(const int64_t k, discrete_->Sample(noise));
    // |r| < 2^52; |n| ≥ 2^53 (beyond exact doubles) has probability below
    // exp(−2^60) and is refused rather than rounded.
    const int64_t n = static_cast<int64_t>(x) + k;
    if (!(std::llabs(n) < (int64_t{1} << 53))) return Status::OutOfRange();
    x = stddev * std::ldexp(static_cast<double>(n), -bits);
  }
  return Status::Ok();
}

}  // namespace edgeadmm::rounds
