// The gateway's DDG decoding against devices encoding with the SDK's own
// pieces (rotate, scale by 1/gamma, conditional randomized rounding, wrap
// mod 2^b; no noise): the decoded sum is the true sum within the rounding
// error, a wrong seed or round id is not, and sizes are refused.
#include "edgeadmm/secure_aggregation/ddg_decoding.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

DdgRoundPlan Plan() {
  DdgRoundPlan p;
  p.bits = 20;
  p.gamma = 1e-3;
  p.sigma2_num = 1;
  p.sigma2_den = 1;
  p.beta = 0.01;
  p.dimension = 10;
  p.clip = 1.0;
  return p;
}

struct Round {
  std::vector<uint32_t> sum;  // mod 2^bits
  std::vector<double> plain;  // the true sum, d entries
};

// n devices, each a clipped vector, encoded as a device does.
Round EncodeRound(const DdgRoundPlan& plan, const std::vector<std::byte>& seed,
                  uint64_t round_id, int n, Drbg& drbg) {
  const size_t dp = DdgPaddedDimension(plan.dimension);
  const uint32_t mask = (uint32_t{1} << plan.bits) - 1;
  Round r{std::vector<uint32_t>(dp, 0),
          std::vector<double>(plan.dimension, 0.0)};
  std::vector<uint32_t> signs(dp / 32 + 1);
  for (int i = 0; i < n; ++i) {
    std::vector<Real> x(dp, 0);
    double norm = 0;
    for (size_t j = 0; j < plan.dimension; ++j) {
      x[j] = Real(double((j * 5 + size_t(i) * 3) % 7) - 3.0 + 0.25 * i);
      norm += double(x[j]) * double(x[j]);
    }
    for (size_t j = 0; j < plan.dimension; ++j) {
      x[j] = Real(double(x[j]) * plan.clip / std::sqrt(norm));
      r.plain[j] += double(x[j]);
    }
    EXPECT_TRUE(DdgRotate(ConstByteSpan(seed.data(), seed.size()), round_id,
                          Span<Real>(x.data(), dp),
                          Span<uint32_t>(signs.data(), signs.size()))
                    .ok());
    for (Real& v : x) v = Real(double(v) / plan.gamma);
    std::vector<int64_t> z(dp);
    EXPECT_TRUE(ConditionalRandomizedRound(Span<const Real>(x.data(), dp),
                                           DdgPlanNormBound(plan), drbg, 8,
                                           Span<int64_t>(z.data(), dp))
                    .ok());
    std::vector<uint32_t> wrapped(dp);
    EXPECT_TRUE(WrapToModulus(Span<const int64_t>(z.data(), dp), plan.bits,
                              Span<uint32_t>(wrapped.data(), dp))
                    .ok());
    for (size_t j = 0; j < dp; ++j) r.sum[j] = (r.sum[j] + wrapped[j]) & mask;
  }
  return r;
}

double Distance(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t j = 0; j < a.size(); ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return std::sqrt(s);
}

class DdgDecodingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(drbg_.Init(entropy_, ConstByteSpan()).ok());
  }
  TestEntropy entropy_{5};
  Drbg drbg_;
  std::vector<std::byte> seed_ = std::vector<std::byte>(32, std::byte{0x5a});
};

TEST_F(DdgDecodingTest, DecodesTheSumWithinTheRoundingError) {
  const DdgRoundPlan plan = Plan();
  const int n = 6;
  const size_t dp = DdgPaddedDimension(plan.dimension);
  // Each device's rounding moves each of its d' coordinates by less than
  // one grid step; the rotation keeps L2 norms.
  const double bound = n * std::sqrt(double(dp)) * plan.gamma;
  for (uint64_t round_id = 1; round_id <= 4; ++round_id) {
    const Round r = EncodeRound(plan, seed_, round_id, n, drbg_);
    const auto decoded =
        DecodeDdgSum(Span<const uint32_t>(r.sum.data(), r.sum.size()), plan,
                     ConstByteSpan(seed_.data(), seed_.size()), round_id);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    ASSERT_EQ(decoded->size(), plan.dimension);
    EXPECT_LE(Distance(*decoded, r.plain), bound) << "round " << round_id;
    // The sum is far from zero: the bound is not met by any small vector.
    EXPECT_GT(Distance(r.plain, std::vector<double>(plan.dimension, 0.0)),
              10 * bound);
  }
}

TEST_F(DdgDecodingTest, AnotherSeedOrRoundDoesNotDecode) {
  const DdgRoundPlan plan = Plan();
  const int n = 6;
  const double bound =
      n * std::sqrt(double(DdgPaddedDimension(plan.dimension))) * plan.gamma;
  const Round r = EncodeRound(plan, seed_, 7, n, drbg_);
  const Span<const uint32_t> sum(r.sum.data(), r.sum.size());
  std::vector<std::byte> other(32, std::byte{0x33});
  const auto wrong_seed =
      DecodeDdgSum(sum, plan, ConstByteSpan(other.data(), other.size()), 7);
  const auto wrong_round =
      DecodeDdgSum(sum, plan, ConstByteSpan(seed_.data(), seed_.size()), 8);
  ASSERT_TRUE(wrong_seed.ok());
  ASSERT_TRUE(wrong_round.ok());
  EXPECT_GT(Distance(*wrong_seed, r.plain), 10 * bound);
  EXPECT_GT(Distance(*wrong_round, r.plain), 10 * bound);
}

TEST_F(DdgDecodingTest, RefusesSizesAndPlans) {
  const DdgRoundPlan plan = Plan();
  std::vector<uint32_t> sum(DdgPaddedDimension(plan.dimension), 0);
  const ConstByteSpan seed(seed_.data(), seed_.size());
  const auto ok =
      DecodeDdgSum(Span<const uint32_t>(sum.data(), sum.size()), plan, seed, 1);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, std::vector<double>(plan.dimension, 0.0));
  const auto short_sum = DecodeDdgSum(
      Span<const uint32_t>(sum.data(), sum.size() - 1), plan, seed, 1);
  ASSERT_FALSE(short_sum.ok());
  EXPECT_EQ(short_sum.error().code(), StatusCode::kInvalidArgument);
  const auto short_seed =
      DecodeDdgSum(Span<const uint32_t>(sum.data(), sum.size()), plan,
                   ConstByteSpan(seed_.data(), 31), 1);
  ASSERT_FALSE(short_seed.ok());
  EXPECT_EQ(short_seed.error().code(), StatusCode::kInvalidArgument);
  DdgRoundPlan bad = plan;
  bad.bits = 33;
  const auto bad_plan =
      DecodeDdgSum(Span<const uint32_t>(sum.data(), sum.size()), bad, seed, 1);
  ASSERT_FALSE(bad_plan.ok());
  EXPECT_EQ(bad_plan.error().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
