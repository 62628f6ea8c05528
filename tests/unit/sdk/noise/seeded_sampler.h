// Test helper: a GaussianSampler on a Drbg seeded from TestEntropy(seed), so
// a test's noise is reproducible. Portable.
#pragma once

#include <cstdint>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "gtest/gtest.h"

namespace edgeadmm {

class SeededSampler {
 public:
  explicit SeededSampler(uint64_t seed) : entropy_(seed) {
    EXPECT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
  }
  GaussianSampler& sampler() { return sampler_; }

 private:
  TestEntropy entropy_;
  Drbg drbg_;
  GaussianSampler sampler_{drbg_};
};

}  // namespace edgeadmm
