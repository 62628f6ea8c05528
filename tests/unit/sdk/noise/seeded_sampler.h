// Test helper: a sampler (GaussianSampler by default, or
// DiscreteGaussianSampler) on a Drbg seeded from TestEntropy(seed), so a
// test's noise is reproducible. Portable.
#pragma once

#include <cstdint>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "gtest/gtest.h"

namespace edgeadmm {

template <typename Sampler>
class SeededSamplerOf {
 public:
  explicit SeededSamplerOf(uint64_t seed) : entropy_(seed) {
    EXPECT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
  }
  Sampler& sampler() { return sampler_; }

 private:
  TestEntropy entropy_;
  Drbg drbg_;
  Sampler sampler_{drbg_};
};

using SeededSampler = SeededSamplerOf<GaussianSampler>;
using SeededDiscreteSampler = SeededSamplerOf<DiscreteGaussianSampler>;

}  // namespace edgeadmm
