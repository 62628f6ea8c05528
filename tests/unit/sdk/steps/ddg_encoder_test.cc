// The device's encoder of the distributed discrete Gaussian
// (sdk/src/steps/ddg_encoder.cc): n devices' words (n = 1, 3, 10, 25, many
// seeds) sum mod 2^b back to the sum of their clipped updates within the
// rounding and noise bound and never wrap; an update above the clip is
// scaled to it (the rounded vector's norm, since the noise is never zero);
// refusals zeroize the words; and golden words for a fixed DRBG seed that
// must be the same on the host and on the Cortex-M4F under QEMU (dyadic
// inputs, gamma and 1/sqrt(d') powers of two: exact in double and in
// float32). Portable (static arrays only).
#include "edgeadmm/ddg_encoder.h"

#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "gtest/gtest.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 50;
constexpr size_t kPadded = 64;

DdgRoundPlan Plan() {
  DdgRoundPlan plan;
  plan.bits = 12;
  plan.gamma = 1.0 / 64;
  plan.sigma2_num = 4;  // sigma_g = 2 grid steps
  plan.sigma2_den = 1;
  plan.beta = std::exp(-0.5);
  plan.dimension = kDim;
  plan.clip = 1;
  return plan;
}

class DdgEncoderTest : public ::testing::Test {
 protected:
  void Seed(uint64_t seed) {
    entropy_ = TestEntropy(seed);  // kept by reference for reseeds
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
    for (size_t i = 0; i < 32; ++i) seed_[i] = static_cast<std::byte>(3 * i);
  }
  ConstByteSpan seed() const { return ConstByteSpan(seed_, 32); }
  DdgEncoderScratch scratch() {
    return {Span<Real>(real_, kPadded), Span<int64_t>(ints_, kPadded),
            Span<uint32_t>(signs_, 2)};
  }
  // Uniform in [-0.5, 0.5).
  double Uniform() {
    std::byte b[4];
    EXPECT_TRUE(drbg_.Generate(ByteSpan(b, 4)).ok());
    const uint32_t w = static_cast<uint32_t>(b[0]) |
                       (static_cast<uint32_t>(b[1]) << 8) |
                       (static_cast<uint32_t>(b[2]) << 16);
    return static_cast<double>(w) / 16777216.0 - 0.5;
  }
  static double Norm(const double* v, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += v[i] * v[i];
    return std::sqrt(s);
  }
  // One trial: n devices, updates of norm up to 1.5 clip (some clipped).
  void SumOfDevices(int devices, uint64_t round_id, double* worst_ratio);

  TestEntropy entropy_{1};
  Drbg drbg_;
  std::byte seed_[32];
  Real real_[kPadded];
  int64_t ints_[kPadded];
  uint32_t signs_[2];
};

void DdgEncoderTest::SumOfDevices(int devices, uint64_t round_id,
                                  double* worst_ratio) {
  const DdgRoundPlan plan = Plan();
  double plain[kDim] = {};
  uint32_t sum[kPadded] = {};
  int64_t true_sum[kPadded] = {};
  for (int i = 0; i < devices; ++i) {
    double x[kDim];
    for (double& v : x) v = Uniform();
    const double norm = Norm(x, kDim);
    const double target = 1.5 * plan.clip * (0.5 + Uniform());
    Real update[kDim];
    for (size_t j = 0; j < kDim; ++j) {
      update[j] = static_cast<Real>(x[j] * target / norm);
      const double clipped = target > plan.clip ? plan.clip / target : 1.0;
      plain[j] += static_cast<double>(update[j]) * clipped;
    }
    uint32_t words[kPadded];
    ASSERT_EQ(DdgEncodeUpdate(plan, seed(), round_id, update, drbg_, scratch(),
                              words),
              Status::Ok());
    for (size_t j = 0; j < kPadded; ++j) {
      EXPECT_LT(words[j], 1u << plan.bits);
      sum[j] += words[j];  // mod 2^32; 2^12 divides it
      true_sum[j] += ints_[j];
    }
  }
  int64_t centred[kPadded];
  ASSERT_TRUE(CentreFromModulus(sum, plan.bits, centred).ok());
  Real decoded[kPadded];
  for (size_t j = 0; j < kPadded; ++j) {
    ASSERT_EQ(centred[j], true_sum[j]) << "wrapped at " << j;
    decoded[j] =
        static_cast<Real>(static_cast<double>(centred[j]) * plan.gamma);
  }
  ASSERT_TRUE(DdgUnrotate(seed(), round_id, decoded, signs_).ok());
  const double sigma2 = static_cast<double>(plan.sigma2_num) /
                        static_cast<double>(plan.sigma2_den);
  const double sd = std::sqrt(devices * (0.25 + sigma2)) * plan.gamma;
  for (size_t j = 0; j < kPadded; ++j) {
    const double truth = j < kDim ? plain[j] : 0.0;
    const double ratio =
        std::fabs(static_cast<double>(decoded[j]) - truth) / sd;
    EXPECT_LE(ratio, 8.0) << "coordinate " << j;
    if (ratio > *worst_ratio) *worst_ratio = ratio;
  }
}

TEST_F(DdgEncoderTest, DevicesSumBackToTheClippedSum) {
  const int kDevices[] = {1, 3, 10, 25};
  double worst_ratio = 0;
  for (int n : kDevices) {
    for (uint64_t s = 1; s <= 12; ++s) {
      SCOPED_TRACE(testing::Message() << "n " << n << " seed " << s);
      Seed(1000 * static_cast<uint64_t>(n) + s);
      SumOfDevices(n, s, &worst_ratio);
    }
  }
  // The largest error in units of its standard deviation: well inside 8,
  // and not zero (the noise is there).
  EXPECT_GT(worst_ratio, 1.0);
  EXPECT_LT(worst_ratio, 8.0);
}

TEST_F(DdgEncoderTest, AnUpdateAboveTheClipIsScaledToIt) {
  Seed(7);
  const DdgRoundPlan plan = Plan();
  const double scaled_clip = plan.clip / plan.gamma;  // 64
  for (double norm : {10.0, 0.5}) {
    SCOPED_TRACE(norm);
    double x[kDim];
    for (double& v : x) v = Uniform();
    const double raw = Norm(x, kDim);
    Real update[kDim];
    for (size_t j = 0; j < kDim; ++j) {
      update[j] = static_cast<Real>(x[j] * norm / raw);
    }
    ASSERT_EQ(DdgRoundUpdate(plan, seed(), 5, update, drbg_, scratch()),
              Status::Ok());
    // ||z - R x' / gamma|| <= sqrt(d') for the clipped x' (each coordinate
    // moves by less than 1), so ||z|| is within 8 of ||x'|| / gamma.
    double z[kPadded];
    for (size_t j = 0; j < kPadded; ++j) z[j] = static_cast<double>(ints_[j]);
    const double expected = std::fmin(norm, plan.clip) / plan.gamma;
    EXPECT_NEAR(Norm(z, kPadded), expected, std::sqrt(double(kPadded)));
    EXPECT_LE(Norm(z, kPadded), DdgPlanNormBound(plan));
    // The direction is kept: z gamma rotated back is the clipped update.
    Real back[kPadded];
    for (size_t j = 0; j < kPadded; ++j) {
      back[j] = static_cast<Real>(z[j] * plan.gamma);
    }
    ASSERT_TRUE(DdgUnrotate(seed(), 5, back, signs_).ok());
    double err[kPadded];
    for (size_t j = 0; j < kPadded; ++j) {
      const double want = j < kDim ? static_cast<double>(update[j]) * expected /
                                         scaled_clip / norm
                                   : 0.0;
      err[j] = static_cast<double>(back[j]) - want;
    }
    EXPECT_LE(Norm(err, kPadded), std::sqrt(double(kPadded)) * plan.gamma);
  }
}

// The zero update (the zero-out neighbour of docs/privacy.md) rounds to
// exactly 0, whatever the rounding's randomness.
TEST_F(DdgEncoderTest, TheZeroUpdateRoundsToZero) {
  Seed(9);
  const Real zero[kDim] = {};
  for (int trial = 0; trial < 5; ++trial) {
    for (int64_t& v : ints_) v = 7;
    ASSERT_EQ(DdgRoundUpdate(Plan(), seed(), 3, zero, drbg_, scratch()),
              Status::Ok());
    for (int64_t v : ints_) EXPECT_EQ(v, 0);
  }
}

TEST_F(DdgEncoderTest, Refusals) {
  Seed(8);
  Real update[kDim] = {};
  update[0] = Real(0.25);
  uint32_t words[kPadded];
  auto encode = [&](const DdgRoundPlan& plan, ConstByteSpan s,
                    Span<const Real> u, DdgEncoderScratch sc,
                    Span<uint32_t> w) {
    for (uint32_t& v : words) v = 0xAAAAu;
    const Status status = DdgEncodeUpdate(plan, s, 1, u, drbg_, sc, w);
    for (uint32_t v : w) EXPECT_EQ(v, 0u);
    return status;
  };
  const Status bad = Status::InvalidArgument();
  DdgRoundPlan plan = Plan();
  plan.bits = 33;
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words), bad);
  plan = Plan();
  plan.sigma2_num = 1;
  plan.sigma2_den = 5;  // sigma_g^2 = 1/5 < 1/4
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words), bad);
  plan = Plan();
  plan.beta = 1;
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words), bad);
  plan = Plan();
  plan.dimension = kDim + 1;  // the update has kDim entries
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words), bad);
  plan = Plan();
  EXPECT_EQ(encode(plan, ConstByteSpan(seed_, 31), update, scratch(), words),
            bad);
  EXPECT_EQ(encode(plan, seed(), Span<const Real>(update, kDim - 1), scratch(),
                   words),
            bad);
  EXPECT_EQ(
      encode(plan, seed(), update, scratch(), Span<uint32_t>(words, kDim)),
      bad);
  DdgEncoderScratch short_scratch = scratch();
  short_scratch.real = Span<Real>(real_, kPadded - 1);
  EXPECT_EQ(encode(plan, seed(), update, short_scratch, words), bad);
  short_scratch = scratch();
  short_scratch.integers = Span<int64_t>(ints_, kPadded - 1);
  EXPECT_EQ(encode(plan, seed(), update, short_scratch, words), bad);
  short_scratch = scratch();
  short_scratch.sign_words = Span<uint32_t>(signs_, 1);
  EXPECT_EQ(encode(plan, seed(), update, short_scratch, words), bad);
  update[3] = static_cast<Real>(std::nan(""));
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words), bad);
  update[3] = 0;
  // A sigma^2 the plan accepts but the sampler cannot draw.
  plan.sigma2_num = uint64_t{1} << 61;
  EXPECT_EQ(encode(plan, seed(), update, scratch(), words),
            Status::OutOfRange());
  for (int64_t v : ints_) EXPECT_EQ(v, 0);
  // And the same call with a good plan succeeds.
  plan = Plan();
  EXPECT_EQ(DdgEncodeUpdate(plan, seed(), 1, update, drbg_, scratch(), words),
            Status::Ok());
}

// Same DRBG seed, same words on every target: d = 10, d' = 16
// (1/sqrt(d') = 1/4), gamma = 1/32 and inputs multiples of 1/16, so the
// rotated and scaled vector is exact in double and in float32 and the
// rounding and noise are integer draws.
TEST_F(DdgEncoderTest, GoldenWordsForAFixedSeed) {
  Seed(20261129);
  DdgRoundPlan plan = Plan();
  plan.dimension = 10;
  plan.gamma = 1.0 / 32;
  plan.sigma2_num = 9;  // sigma_g = 3/2
  plan.sigma2_den = 4;
  plan.bits = 16;
  static const Real kUpdate[10] = {0.25,    -0.125, 0.0625, 0,      0.5,
                                   -0.3125, 0.1875, -0.25,  0.0625, 0.125};
  static const uint32_t kGolden[16] = {1,     2,     7,     65532, 65533, 65535,
                                       65523, 65531, 0,     2,     4,     65533,
                                       65532, 0,     65525, 65534};
  uint32_t words[16];
  int64_t ints[16];
  Real real[16];
  uint32_t signs[1];
  ASSERT_EQ(DdgEncodeUpdate(plan, seed(), 42, kUpdate, drbg_,
                            {real, ints, signs}, words),
            Status::Ok());
  for (int i = 0; i < 16; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(words[i], kGolden[i]) << "word " << words[i];
  }
}

}  // namespace
}  // namespace edgeadmm
