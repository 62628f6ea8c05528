// Discrete Gaussian sampler (CKS 2020 Alg. 1–3): parameter ranges, the
// rejection of UniformBelow on scripted bytes, the 128-bit γ arithmetic at
// the range limit, and golden integers for a fixed DRBG seed, which must be
// the same on the host and the MCU (no floating point in the sampling path).
// Portable (static arrays only); the statistics are in
// discrete_gaussian_sampler_host_test.cc.
#include "edgeadmm/discrete_gaussian_sampler.h"

#include <cstdint>

#include "edgeadmm/drbg.h"
#include "gtest/gtest.h"
#include "scripted_bytes.h"
#include "seeded_sampler.h"

namespace edgeadmm {
namespace {

TEST(DiscreteGaussianTest, ParametersAreReducedAndChecked) {
  EXPECT_EQ(DiscreteGaussian::Create(0, 1).status(), Status::InvalidArgument());
  EXPECT_EQ(DiscreteGaussian::Create(1, 0).status(), Status::InvalidArgument());
  Result<DiscreteGaussian> p = DiscreteGaussian::Create(2738, 200);  // 13.69
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->num(), 1369u);
  EXPECT_EQ(p->den(), 100u);
  EXPECT_EQ(p->t(), 4u);  // ⌊3.7⌋ + 1
  EXPECT_EQ(p->den_t(), 400u);
  EXPECT_EQ(p->gamma_den(), 2u * 1369u * 100u * 16u);
  EXPECT_EQ(p->max_magnitude(), 0x7fffffffffffffffu / 400u);
  // σ² = 16: t = 5, not 4 (⌊σ⌋ + 1 with σ an integer).
  EXPECT_EQ(DiscreteGaussian::Create(16, 1)->t(), 5u);
  EXPECT_EQ(DiscreteGaussian::Create(15, 1)->t(), 4u);
  EXPECT_EQ(DiscreteGaussian::Create(1, 4)->t(), 1u);
  // σ = p/q: σ² = p²/q².
  Result<DiscreteGaussian> s = DiscreteGaussian::FromStddev(37, 10);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->num(), 1369u);
  EXPECT_EQ(s->den(), 100u);
  EXPECT_EQ(DiscreteGaussian::FromStddev(0, 1).status(),
            Status::InvalidArgument());
  EXPECT_EQ(DiscreteGaussian::FromStddev(uint64_t{1} << 32, 1).status(),
            Status::OutOfRange());
  // 2·num·den·t² must be below 2^64: σ² = 2^31 passes (t = 46341,
  // 2·2^31·46341² ≈ 9.2·10^18), 2^32 does not.
  EXPECT_TRUE(DiscreteGaussian::Create(uint64_t{1} << 31, 1).ok());
  EXPECT_EQ(DiscreteGaussian::Create(uint64_t{1} << 32, 1).status(),
            Status::OutOfRange());
  EXPECT_EQ(DiscreteGaussian::Create(3, uint64_t{1} << 62).status(),
            Status::OutOfRange());
}

// UniformBelow(5) reads one byte per try, keeps its low 3 bits and rejects
// 7, 5 and 0xfd & 7 = 5 before accepting 3; the next byte (0) gives 0.
TEST(DiscreteGaussianSamplerTest, UniformBelowRejectsOutOfRangeValues) {
  static const uint64_t kWords[] = {0x0000000003fd0507u};  // bytes 07 05 fd 03
  ScriptedBytes bytes(kWords);
  DiscreteGaussianSampler s(bytes);
  EXPECT_EQ(*s.UniformBelow(5), 3u);
  EXPECT_EQ(*s.UniformBelow(5), 0u);
  EXPECT_EQ(s.UniformBelow(0).status(), Status::InvalidArgument());
  EXPECT_EQ(*s.UniformBelow(1), 0u);  // no bytes drawn
  EXPECT_EQ(s.Bernoulli(2, 1).status(), Status::InvalidArgument());
  EXPECT_EQ(s.BernoulliExp(1, 0).status(), Status::InvalidArgument());
  EXPECT_EQ(s.DiscreteLaplace(0, 1).status(), Status::InvalidArgument());
}

// Bernoulli(exp(0)) = 1 and Bernoulli(1) take no bytes; exp(−n/d) for huge
// n/d is 0 as soon as one Bernoulli(exp(−1)) fails.
TEST(DiscreteGaussianSamplerTest, BernoulliEdgeCases) {
  static const uint64_t kWords[] = {0};
  ScriptedBytes bytes(kWords);
  DiscreteGaussianSampler s(bytes);
  EXPECT_TRUE(*s.BernoulliExp(0, 7));
  EXPECT_TRUE(*s.Bernoulli(3, 3));
  EXPECT_FALSE(*s.Bernoulli(0, 3));
  // On 0xff bytes every UniformBelow(k ≥ 2) is non-zero. Alg. 1 with γ = 1:
  // K = 1, Bern(1)·Bern(1/1) = 1 → K = 2, Bern(1/2) = 0 → K even, so
  // Bernoulli(exp(−1)) = 0 and exp(−10^18) is 0 after one round, although
  // ⌊γ⌋ = 10^18.
  ScriptedBytes ones(Span<const uint64_t>(), ~uint64_t{0});
  DiscreteGaussianSampler t(ones);
  EXPECT_FALSE(*t.BernoulliExp(1000000000000000000u, 1));
}

// Golden integers: TestEntropy(20261125), σ² = 13.69 (σ = 3.7), then the
// grid helper with step 0.25 and σ/g = 37/10. Integer arithmetic only, so
// every target (host, Cortex-M4F under QEMU, aarch64, armhf) must print the
// same values.
TEST(DiscreteGaussianSamplerTest, GoldenSamplesForAFixedSeed) {
  SeededDiscreteSampler seeded(20261125);
  DiscreteGaussianSampler& s = seeded.sampler();
  Result<DiscreteGaussian> p = DiscreteGaussian::Create(1369, 100);
  ASSERT_TRUE(p.ok());
  static const int64_t kGolden[32] = {-3, 7,  5,  -4, 1,  9, 0,  -3, 6,  -5, 3,
                                      -7, 3,  -2, 3,  -5, 5, -7, -3, -4, 4,  1,
                                      -1, -1, -4, 1,  3,  1, 8,  4,  -2, -3};
  static int64_t k[32];
  ASSERT_TRUE(s.Sample(*p, k).ok());
  for (int i = 0; i < 32; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(k[i], kGolden[i]);
  }
  static const Real kGrid[4] = {0.5, -1.75, -0.25, -1.25};
  static Real v[4];
  ASSERT_TRUE(
      s.SampleOnGrid(*DiscreteGaussian::FromStddev(37, 10), 0.25, v).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(v[i], kGrid[i]);
  EXPECT_EQ(s.SampleOnGrid(*p, 0.0, v), Status::InvalidArgument());
}

// At the range limit σ² = 2^31 (t = 46341), max_magnitude/σ > 2^31
// (docs/privacy.md, "Discrete Gaussian"); the γ arithmetic there is checked
// in wide_uint_test.cc.
TEST(DiscreteGaussianTest, RangeLimitKeepsTheTailBeyondTwoToThe31Sigma) {
  Result<DiscreteGaussian> p = DiscreteGaussian::Create(uint64_t{1} << 31, 1);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->t(), 46341u);
  EXPECT_EQ(p->max_magnitude(), 0x7fffffffffffffffu / 46341u);
  EXPECT_GT(p->max_magnitude() / 46341u, uint64_t{1} << 31);  // σ < 46341
}

TEST(DiscreteGaussianSamplerTest, UninitialisedDrbgIsReported) {
  Drbg drbg;
  DiscreteGaussianSampler s(drbg);
  EXPECT_EQ(s.Sample(*DiscreteGaussian::Create(1, 1)).status(),
            Status::FailedPrecondition());
}

}  // namespace
}  // namespace edgeadmm
