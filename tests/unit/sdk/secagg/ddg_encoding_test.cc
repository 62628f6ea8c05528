// The distributed discrete Gaussian's encoding (sdk/src/secagg/
// ddg_encoding.cc): the rotation is orthogonal and its inverse undoes it,
// depends on the public seed and round, and flattens a spike; conditional
// randomized rounding moves each coordinate to a neighbouring integer and
// never returns a vector above the bound (ABORTED when the bound cannot be
// met); the KLS norm bound by hand; the wrap mod 2^b and the centred read
// back; and ten devices' encoded vectors (rotation, scale, rounding, the
// SDK's discrete Gaussian noise, mod 2^20) sum back to the plain sum of
// their inputs within the noise. Portable (float on the MCU).
#include "edgeadmm/secagg/ddg_encoding.h"

#include <cmath>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kPadded = 128;

class DdgEncodingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    for (size_t i = 0; i < 32; ++i) seed_[i] = static_cast<std::byte>(i + 1);
  }
  ConstByteSpan seed() const { return ConstByteSpan(seed_, 32); }
  Real Uniform() {
    std::byte b[4];
    EXPECT_TRUE(drbg_.Generate(ByteSpan(b, 4)).ok());
    const uint32_t w = static_cast<uint32_t>(b[0]) |
                       (static_cast<uint32_t>(b[1]) << 8) |
                       (static_cast<uint32_t>(b[2]) << 16);
    return static_cast<Real>(w) / static_cast<Real>(1 << 24) - Real(0.5);
  }
  static double Norm(const Real* v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += double(v[i]) * double(v[i]);
    return std::sqrt(s);
  }

  TestEntropy entropy_{2021};
  Drbg drbg_;
  std::byte seed_[32];
  uint32_t signs_[kPadded / 32];
};

TEST_F(DdgEncodingTest, RotationIsOrthogonalAndInvertible) {
  Real v[kPadded], w[kPadded], other[kPadded];
  for (size_t i = 0; i < kPadded; ++i) v[i] = w[i] = other[i] = Uniform();
  const Span<uint32_t> signs(signs_, 4);
  ASSERT_TRUE(DdgRotate(seed(), 1, Span<Real>(w, kPadded), signs).ok());
  ASSERT_TRUE(DdgRotate(seed(), 2, Span<Real>(other, kPadded), signs).ok());
  EXPECT_NEAR(Norm(w, kPadded), Norm(v, kPadded), 1e-4);
  size_t differ = 0;
  for (size_t i = 0; i < kPadded; ++i) differ += w[i] != other[i] ? 1 : 0;
  EXPECT_GT(differ, kPadded / 2);  // another round, another rotation
  ASSERT_TRUE(DdgUnrotate(seed(), 1, Span<Real>(w, kPadded), signs).ok());
  for (size_t i = 0; i < kPadded; ++i) EXPECT_NEAR(w[i], v[i], 1e-5);
  // A spike is spread flat: every coordinate is +-1/sqrt(d').
  Real spike[kPadded] = {};
  spike[17] = 1;
  ASSERT_TRUE(DdgRotate(seed(), 1, Span<Real>(spike, kPadded), signs).ok());
  for (Real x : spike) EXPECT_NEAR(std::fabs(x), 1 / std::sqrt(128.0), 1e-6);
  Real odd[3] = {};
  EXPECT_EQ(DdgRotate(seed(), 1, Span<Real>(odd, 3), signs),
            Status::InvalidArgument());
  EXPECT_EQ(
      DdgRotate(seed(), 1, Span<Real>(v, kPadded), Span<uint32_t>(signs_, 3)),
      Status::InvalidArgument());
  EXPECT_EQ(DdgPaddedDimension(100), 128u);
  EXPECT_EQ(DdgPaddedDimension(128), 128u);
  EXPECT_EQ(DdgPaddedDimension(1), 1u);
}

TEST_F(DdgEncodingTest, NormBoundByHand) {
  // c = 10, d' = 128, beta = e^-0.5: sqrt(2 ln(1/beta)) = 1, so
  // bound^2 = 100 + 32 + (10 + sqrt(128)/2) = 147.657, below (10 +
  // sqrt(128))^2.
  EXPECT_NEAR(DdgRoundedNormBound(10, 128, std::exp(-0.5)),
              std::sqrt(147.65685424949238), 1e-9);
  // A tiny beta: the worst case c + sqrt(d') is the smaller one.
  EXPECT_NEAR(DdgRoundedNormBound(1, 4, 1e-300), 3.0, 1e-12);
  EXPECT_EQ(DdgRoundedNormBound(1, 4, 1.5), 0.0);
  EXPECT_EQ(DdgRoundedNormBound(0, 4, 0.5), 0.0);
}

TEST_F(DdgEncodingTest, ConditionalRoundingStaysWithinTheBound) {
  Real scaled[kPadded];
  for (Real& x : scaled) x = 40 * Uniform();
  const double norm = Norm(scaled, kPadded);
  const double bound = DdgRoundedNormBound(norm, kPadded, std::exp(-0.5));
  int64_t z[kPadded];
  for (int trial = 0; trial < 20; ++trial) {
    ASSERT_TRUE(ConditionalRandomizedRound(Span<const Real>(scaled, kPadded),
                                           bound, drbg_, 50,
                                           Span<int64_t>(z, kPadded))
                    .ok());
    double sq = 0;
    for (size_t j = 0; j < kPadded; ++j) {
      const double down = std::floor(double(scaled[j]));
      EXPECT_TRUE(z[j] == int64_t(down) || z[j] == int64_t(down) + 1);
      sq += double(z[j]) * double(z[j]);
    }
    EXPECT_LE(std::sqrt(sq), bound);
  }
  // A bound below every rounding's norm: refused after the attempts.
  EXPECT_EQ(
      ConditionalRandomizedRound(Span<const Real>(scaled, kPadded), norm / 2,
                                 drbg_, 5, Span<int64_t>(z, kPadded)),
      Status::Aborted());
  for (int64_t v : z) EXPECT_EQ(v, 0);
  scaled[3] = std::nanf("");
  EXPECT_EQ(ConditionalRandomizedRound(Span<const Real>(scaled, kPadded), bound,
                                       drbg_, 5, Span<int64_t>(z, kPadded)),
            Status::InvalidArgument());
}

TEST_F(DdgEncodingTest, WrapAndCentre) {
  const int64_t z[5] = {0, 1, -1, 32767, -32768};
  uint32_t wrapped[5];
  int64_t back[5];
  ASSERT_TRUE(
      WrapToModulus(Span<const int64_t>(z, 5), 16, Span<uint32_t>(wrapped, 5))
          .ok());
  EXPECT_EQ(wrapped[2], 65535u);
  EXPECT_EQ(wrapped[4], 32768u);
  ASSERT_TRUE(CentreFromModulus(Span<const uint32_t>(wrapped, 5), 16,
                                Span<int64_t>(back, 5))
                  .ok());
  for (int i = 0; i < 5; ++i) EXPECT_EQ(back[i], z[i]);
  EXPECT_EQ(
      WrapToModulus(Span<const int64_t>(z, 5), 33, Span<uint32_t>(wrapped, 5)),
      Status::InvalidArgument());
}

TEST_F(DdgEncodingTest, TenDevicesDecodeToTheSum) {
  constexpr size_t kDim = 100;
  constexpr int kDevices = 10;
  constexpr uint32_t kBits = 20;
  const double gamma = 1.0 / 256;
  auto noise = DiscreteGaussian::FromStddev(2, 1);  // sigma/gamma = 2
  ASSERT_TRUE(noise.ok());
  DiscreteGaussianSampler sampler(drbg_);
  double plain[kDim] = {};
  uint32_t sum[kPadded] = {};
  for (int i = 0; i < kDevices; ++i) {
    Real x[kPadded] = {};
    for (size_t j = 0; j < kDim; ++j) {
      x[j] = Real(0.2) * Uniform();  // norm about 0.58 <= clip 1
      plain[j] += double(x[j]);
    }
    ASSERT_TRUE(
        DdgRotate(seed(), 9, Span<Real>(x, kPadded), Span<uint32_t>(signs_, 4))
            .ok());
    for (Real& v : x) v = static_cast<Real>(double(v) / gamma);
    int64_t z[kPadded], n[kPadded];
    ASSERT_TRUE(ConditionalRandomizedRound(
                    Span<const Real>(x, kPadded),
                    DdgRoundedNormBound(1 / gamma, kPadded, std::exp(-0.5)),
                    drbg_, 20, Span<int64_t>(z, kPadded))
                    .ok());
    ASSERT_TRUE(sampler.Sample(noise.value(), Span<int64_t>(n, kPadded)).ok());
    for (size_t j = 0; j < kPadded; ++j) z[j] += n[j];
    uint32_t y[kPadded];
    ASSERT_TRUE(WrapToModulus(Span<const int64_t>(z, kPadded), kBits,
                              Span<uint32_t>(y, kPadded))
                    .ok());
    for (size_t j = 0; j < kPadded; ++j)
      sum[j] += y[j];  // mod 2^32; 2^20 divides it
  }
  int64_t centred[kPadded];
  ASSERT_TRUE(CentreFromModulus(Span<const uint32_t>(sum, kPadded), kBits,
                                Span<int64_t>(centred, kPadded))
                  .ok());
  Real decoded[kPadded];
  for (size_t j = 0; j < kPadded; ++j) {
    decoded[j] = static_cast<Real>(double(centred[j]) * gamma);
  }
  ASSERT_TRUE(DdgUnrotate(seed(), 9, Span<Real>(decoded, kPadded),
                          Span<uint32_t>(signs_, 4))
                  .ok());
  // Per coordinate: noise std gamma * sqrt(10 * (4 + 1/4)) = 0.025.
  double worst = 0;
  for (size_t j = 0; j < kDim; ++j) {
    worst = std::fmax(worst, std::fabs(double(decoded[j]) - plain[j]));
  }
  EXPECT_LT(worst, 0.2);
  for (size_t j = kDim; j < kPadded; ++j) EXPECT_LT(std::fabs(decoded[j]), 0.2);
}

}  // namespace
}  // namespace edgeadmm
