// The distributed discrete Gaussian's parameter choice: it meets the target
// epsilon when the accountant charges only the honest survivors' noise, its
// grid step and bit width are the smallest the goals allow, and the device
// encoding it drives (rotation, conditional rounding, discrete Gaussian,
// wrap mod 2^b) stays inside the modulus on sampled vectors.
#include "edgeadmm/secure_aggregation/ddg_parameters.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/privacy/composition.h"
#include "edgeadmm/secagg/ddg_encoding.h"
#include "edgeadmm/secagg/ddg_plan.h"
#include "gtest/gtest.h"

namespace edgeadmm::secure_aggregation {
namespace {

DdgGoal ThousandDevices() {
  DdgGoal g;
  g.epsilon = 1.0;
  g.delta = 1e-5;
  g.rounds = 50;
  g.cohort = 1000;
  g.colluders = 50;
  g.dropouts = 100;
  g.dimension = 123;
  g.clip = 1.0;
  return g;
}

double ChargedEpsilon(const DdgParameters& p, uint32_t devices,
                      const DdgGoal& g) {
  DdgParameters q = p;
  q.honest_devices = devices;
  privacy::Accountant accountant;
  EXPECT_TRUE(accountant.Compose(DdgRoundMechanism(q), g.rounds).ok());
  return accountant.Epsilon(g.delta, g.conversion)->epsilon;
}

TEST(DdgParametersTest, MeetsTheTargetForTheHonestSurvivorsOnly) {
  const DdgGoal g = ThousandDevices();
  const auto chosen = ChooseDdgParameters(g);
  ASSERT_TRUE(chosen.ok()) << chosen.error().message();
  const DdgParameters& p = *chosen;
  std::printf(
      "n 1000 t 50 D 100 d 123 C 1 eps 1 delta 1e-5 rounds 50: bits %u "
      "gamma %.4g sigma %.4g (%.4g steps) D2 %.4g log2 wrap %.1f eps %.4f "
      "mse %.4g\n",
      p.bits, p.gamma, p.sigma, p.sigma_grid, p.norm_bound, p.log2_wrap,
      p.epsilon, p.predicted_mse);
  EXPECT_EQ(p.honest_devices, 850u);
  EXPECT_EQ(p.padded_dimension, 128u);
  EXPECT_LE(p.bits, 32u);
  EXPECT_GE(p.sigma_grid, 0.5);
  EXPECT_NEAR(p.sigma, p.sigma_grid * p.gamma, 1e-12 * p.sigma);
  EXPECT_LE(p.log2_wrap, g.log2_wrap);
  // The accountant, asked independently, charges at most the target, and
  // the choice wastes little of it.
  const double eps = ChargedEpsilon(p, p.honest_devices, g);
  EXPECT_LE(eps, g.epsilon);
  EXPECT_GE(eps, 0.99 * g.epsilon);
  EXPECT_DOUBLE_EQ(eps, p.epsilon);
  // Counting the colluders' noise (n - D devices) would charge less than
  // what the observer faces...
  EXPECT_LT(ChargedEpsilon(p, g.cohort - g.dropouts, g), 0.97 * eps);
  // ...so a choice made that way (t = 0) misses the target once the
  // colluders are taken out.
  DdgGoal blind = g;
  blind.colluders = 0;
  const DdgParameters b = ChooseDdgParameters(blind).value();
  EXPECT_GT(ChargedEpsilon(b, p.honest_devices, g), g.epsilon);
  // The predicted MSE is the cohort's rounding and noise on d' coordinates.
  EXPECT_NEAR(p.predicted_mse,
              1000.0 * 128 * (p.gamma * p.gamma / 4 + p.sigma * p.sigma),
              1e-9 * p.predicted_mse);
}

TEST(DdgParametersTest, GridAndBitsAreTheSmallestTheGoalsAllow) {
  const DdgGoal g = ThousandDevices();
  const DdgParameters p = ChooseDdgParameters(g).value();
  // A finer grid (with the noise the same in real units) breaks the wrap
  // goal at the chosen bits.
  const DdgParameters finer =
      EvaluateDdg(g, p.bits, p.gamma / 1.05, p.sigma_grid * 1.05).value();
  EXPECT_GT(finer.log2_wrap, g.log2_wrap);
  // One bit fewer cannot keep the MSE within the slack of 32 bits'.
  DdgGoal full = g;
  full.mse_slack = 0;
  const DdgParameters at32 = ChooseDdgParameters(full).value();
  EXPECT_EQ(at32.bits, 32u);
  EXPECT_LE(p.predicted_mse, at32.predicted_mse * (1 + g.mse_slack));
  DdgGoal fewer = g;
  fewer.max_bits = p.bits - 1;
  fewer.mse_slack = 0;
  const auto less = ChooseDdgParameters(fewer);
  if (less.ok()) {
    EXPECT_GT(less->predicted_mse, at32.predicted_mse * (1 + g.mse_slack));
  }
  // More devices at the same target need less noise from each.
  DdgGoal bigger = g;
  bigger.cohort = 4000;
  bigger.colluders = 200;
  bigger.dropouts = 400;
  bigger.max_bits = 32;
  bigger.mse_slack = 0;
  EXPECT_LT(ChooseDdgParameters(bigger)->sigma, at32.sigma);
}

TEST(DdgParametersTest, RefusesBadGoals) {
  DdgGoal g = ThousandDevices();
  g.colluders = 500;
  g.dropouts = 500;  // nobody honest is left
  EXPECT_EQ(ChooseDdgParameters(g).status().code(),
            StatusCode::kInvalidArgument);
  g = ThousandDevices();
  g.max_bits = 33;
  EXPECT_EQ(ChooseDdgParameters(g).status().code(),
            StatusCode::kInvalidArgument);
  g = ThousandDevices();
  g.max_bits = 4;  // 16 values cannot hold the sum of 1000 devices
  EXPECT_EQ(ChooseDdgParameters(g).status().code(), StatusCode::kOutOfRange);
  EXPECT_FALSE(EvaluateDdg(ThousandDevices(), 16, 0.01, 0.4).ok());
}

TEST(DdgParametersTest, PlanCarriesAtLeastTheChargedNoiseAndIsChecked) {
  const DdgGoal g = ThousandDevices();
  const DdgParameters p = ChooseDdgParameters(g).value();
  const DdgRoundPlan plan = PlanFromDdgParameters(p, g).value();
  EXPECT_TRUE(ValidateDdgRoundPlan(plan).ok());
  EXPECT_EQ(plan.bits, p.bits);
  const double sigma2 = double(plan.sigma2_num) / double(plan.sigma2_den);
  EXPECT_GE(sigma2, p.sigma_grid * p.sigma_grid);
  EXPECT_LT(sigma2, p.sigma_grid * p.sigma_grid + 1.0 / 1024 + 1e-9);
  // The device's own norm bound is the one the accountant charged.
  EXPECT_DOUBLE_EQ(DdgPlanNormBound(plan), p.norm_bound);
  // The sampler accepts the plan's sigma.
  EXPECT_TRUE(DiscreteGaussian::Create(plan.sigma2_num, plan.sigma2_den).ok());

  auto refused = [&](auto change) {
    DdgRoundPlan bad = plan;
    change(bad);
    return !ValidateDdgRoundPlan(bad).ok() && DdgPlanNormBound(bad) == 0.0;
  };
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.bits = 0; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.bits = 33; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.gamma = 0; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.gamma = NAN; }));
  // sigma_g^2 = 1/5 < 1/4: below the accountant's sigma >= 1/2.
  EXPECT_TRUE(refused([](DdgRoundPlan& b) {
    b.sigma2_num = 1;
    b.sigma2_den = 5;
  }));
  EXPECT_FALSE(refused([](DdgRoundPlan& b) {
    b.sigma2_num = 1;
    b.sigma2_den = 4;
  }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.sigma2_den = 0; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.beta = 0; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.beta = 1; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.dimension = 0; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.clip = -1; }));
  EXPECT_TRUE(refused([](DdgRoundPlan& b) { b.gamma = 1e-12; }));
}

// n devices encode with the real SDK code; returns the exact integer sum
// of their (rounded + noise) vectors, and the plain sum of their inputs.
struct Encoded {
  std::vector<int64_t> sum;
  std::vector<double> plain;
};

Encoded EncodeRound(const DdgParameters& p, const DdgGoal& g, uint64_t round,
                    Drbg& drbg, const DiscreteGaussian& noise) {
  const size_t dp = p.padded_dimension;
  Encoded out{std::vector<int64_t>(dp, 0), std::vector<double>(dp, 0.0)};
  std::vector<std::byte> seed(32, std::byte{7});
  std::vector<uint32_t> signs(dp / 32 + 1);
  DiscreteGaussianSampler sampler(drbg);
  for (uint32_t i = 0; i < g.cohort; ++i) {
    // Half the devices send the same unit vector (the signal's worst case:
    // ||sum|| = n C for them), half a random direction.
    std::vector<Real> x(dp, 0);
    for (size_t j = 0; j < g.dimension; ++j) {
      x[j] = i % 2 == 0 ? Real(1) : Real((j * 7 + i * 13) % 11) - Real(5);
    }
    double norm = 0;
    for (Real v : x) norm += double(v) * double(v);
    for (size_t j = 0; j < dp; ++j) {
      x[j] = Real(double(x[j]) * g.clip / std::sqrt(norm));
      out.plain[j] += double(x[j]);
    }
    EXPECT_TRUE(DdgRotate(ConstByteSpan(seed.data(), seed.size()), round,
                          Span<Real>(x.data(), dp),
                          Span<uint32_t>(signs.data(), signs.size()))
                    .ok());
    for (Real& v : x) v = Real(double(v) / p.gamma);
    std::vector<int64_t> z(dp);
    EXPECT_TRUE(ConditionalRandomizedRound(Span<const Real>(x.data(), dp),
                                           p.norm_bound, drbg, 8,
                                           Span<int64_t>(z.data(), dp))
                    .ok());
    for (size_t j = 0; j < dp; ++j) out.sum[j] += z[j] + *sampler.Sample(noise);
  }
  return out;
}

TEST(DdgParametersTest, SampledRoundsStayInsideTheModulus) {
  DdgGoal g;
  g.epsilon = 4;
  g.rounds = 10;
  g.cohort = 64;
  g.colluders = 4;
  g.dropouts = 6;
  g.dimension = 100;
  g.clip = 1.0;
  g.log2_wrap = -20;
  const DdgParameters p = ChooseDdgParameters(g).value();
  ASSERT_LE(p.log2_wrap, -20);
  // The devices run the plan: its sigma_g^2 (rounded up) and norm bound.
  const DdgRoundPlan plan = PlanFromDdgParameters(p, g).value();
  ASSERT_EQ(DdgPlanNormBound(plan), p.norm_bound);
  const DiscreteGaussian noise =
      DiscreteGaussian::Create(plan.sigma2_num, plan.sigma2_den).value();
  const double sigma_used =
      std::sqrt(double(plan.sigma2_num) / double(plan.sigma2_den)) * p.gamma;
  TestEntropy entropy(33);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  const int64_t half = int64_t{1} << (p.bits - 1);
  const int64_t small_half = half >> 3;  // three bits fewer
  int wraps = 0;
  int small_wraps = 0;
  double squared_error = 0;
  const int kRounds = 12;
  const size_t dp = p.padded_dimension;
  std::vector<std::byte> seed(32, std::byte{7});
  std::vector<uint32_t> signs(dp / 32 + 1);
  for (int r = 0; r < kRounds; ++r) {
    const Encoded e = EncodeRound(p, g, r, drbg, noise);
    std::vector<uint32_t> wrapped(dp);
    ASSERT_TRUE(WrapToModulus(Span<const int64_t>(e.sum.data(), dp), p.bits,
                              Span<uint32_t>(wrapped.data(), dp))
                    .ok());
    std::vector<int64_t> centred(dp);
    ASSERT_TRUE(CentreFromModulus(Span<const uint32_t>(wrapped.data(), dp),
                                  p.bits, Span<int64_t>(centred.data(), dp))
                    .ok());
    std::vector<Real> decoded(dp);
    for (size_t j = 0; j < dp; ++j) {
      if (e.sum[j] >= half || e.sum[j] < -half) ++wraps;
      if (e.sum[j] >= small_half || e.sum[j] < -small_half) ++small_wraps;
      decoded[j] = Real(double(centred[j]) * p.gamma);
    }
    ASSERT_TRUE(DdgUnrotate(ConstByteSpan(seed.data(), seed.size()),
                            uint64_t(r), Span<Real>(decoded.data(), dp),
                            Span<uint32_t>(signs.data(), signs.size()))
                    .ok());
    for (size_t j = 0; j < dp; ++j) {
      const double err = double(decoded[j]) - e.plain[j];
      squared_error += err * err;
    }
  }
  EXPECT_EQ(wraps, 0);
  // The same sums in three bits fewer do wrap: the count above can see it.
  EXPECT_GT(small_wraps, 0);
  // The measured MSE of the decoded sum is the predicted one (with the
  // sampler's rounded-up sigma): rounding at most 1/4 per coordinate.
  const double measured = squared_error / kRounds;
  const double noise_part = g.cohort * double(dp) * sigma_used * sigma_used;
  const double predicted =
      noise_part + g.cohort * double(dp) * p.gamma * p.gamma / 4;
  EXPECT_LT(measured, 1.15 * predicted);
  EXPECT_GT(measured, 0.85 * noise_part);
}

}  // namespace
}  // namespace edgeadmm::secure_aggregation
