// dp-admm's device noise (paper 004's (3b), linearized_admm_step.h) is the
// exact discrete Gaussian on the grid g = σ/2^10 (grid_gaussian.h), never
// Box–Muller: LinearizedAdmmStep::Run takes a DiscreteGaussianSampler (a
// GaussianSampler does not convert: exact_noise_steps_test.cc checks both
// at compile time); the released w̃ is the data part u of
// (3a) rounded to the guarded grid point plus g·N_Z(0, 4^10), checked
// coordinate by coordinate and by its first two moments; the guard holds
// at dp-admm's scale (B/g ≈ 10^3) on vectors past the bound; the trainer's
// ledger charges 2·(B + g√p/2), by hand. Portable (static arrays only;
// the golden integers are checked on the host and under QEMU).
#include <cmath>
#include <cstdint>
#include <limits>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/grid_gaussian.h"
#include "edgeadmm/linearized_admm_runner.h"
#include "edgeadmm/linearized_admm_step.h"
#include "edgeadmm/local_steps.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

constexpr size_t kSamples = 16;
constexpr size_t kDim = 8;
constexpr size_t kBytes = LinearizedAdmmStep::WorkspaceBytes(kSamples, kDim);

// ε = 1 per step, so that σ is large enough for the moments below to see
// the grid's scale; no regularizer: at w = γ = w̃ = 0, (3a)'s public part c
// is 0 and w̃ is the grid release itself.
LinearizedAdmmParams Params() {
  LinearizedAdmmParams p;
  p.rho = 1;
  p.providers = 4;
  p.schedule = LinearizedSchedule::kSmooth;
  p.dw = 1;
  p.s1 = 1;
  p.epsilon = 1;
  p.delta = 1e-5;
  return p;
}

struct StepFixture {
  testing::SyntheticData<kSamples, kDim> data{7};
  DatasetView view = data.View();
  alignas(Workspace::kAlignment) std::byte memory[kBytes];
  LinearizedAdmmStep step;
  Real zeros[kDim] = {};

  StepFixture() {
    Workspace ws(ByteSpan(memory, kBytes));
    EXPECT_TRUE(step.Init(ws, view, Loss()).ok());
  }
  // w̃ after one step at k = 0 from zeros.
  Status Release(DiscreteGaussianSampler& noise, bool add_noise, Real* out) {
    LinearizedAdmmParams p = Params();
    p.add_noise = add_noise;
    for (size_t i = 0; i < kDim; ++i) out[i] = 0;
    return step.Run(p, 0, zeros, zeros, Span<Real>(out, kDim), noise).status();
  }
};

// 256 releases of the same u: each coordinate is g·(r_i + k_i) with r the
// guarded grid point of u (RoundToGrid) and k_i an integer, and the k_i
// have mean 0 and variance 4^10 (z-scores under 5 for a fixed seed; a
// Box–Muller draw is off the grid with probability 1); the first release's
// k is a golden that the Cortex-M4F build must reproduce.
TEST(DpAdmmGridNoiseTest, ReleasesAreTheGridPointPlusDiscreteNoise) {
  static StepFixture f;
  TestEntropy entropy(21);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  DiscreteGaussianSampler noise(drbg);
  static Real u[kDim];
  ASSERT_TRUE(f.Release(noise, false, u).ok());  // w̃ = c + u = u
  const LinearizedAdmmParams p = Params();
  const Real s = p.NoiseStd(0, kSamples);
  const Real bound = p.UpdateBound(0, kSamples);
  static int32_t r[kDim];
  ASSERT_TRUE(RoundToGrid(bound, s, u, r).ok());
  const double g = double(s) / 1024;
  constexpr int kDraws = 256;
  double sum = 0, sum2 = 0;
  static Real w[kDim];
  static int64_t first[kDim];
  for (int d = 0; d < kDraws; ++d) {
    ASSERT_TRUE(f.Release(noise, true, w).ok());
    for (size_t i = 0; i < kDim; ++i) {
      const double steps = double(w[i]) / g - r[i];
      const double k = std::round(steps);
      ASSERT_LT(std::abs(steps - k), 1e-2) << d << " " << i;
      sum += k;
      sum2 += k * k;
      if (d == 0) first[i] = static_cast<int64_t>(k);
    }
  }
  // The first release's integers: the same DRBG bytes and integer sampler
  // on the host and the Cortex-M4F under QEMU, so the same values there
  // (r, from u in double or float32, is far from a half step here).
  const int64_t golden[kDim] = {233,   -998,  -2020, -1082,
                                -1428, -1447, -732,  -179};
  for (size_t i = 0; i < kDim; ++i) EXPECT_EQ(first[i], golden[i]) << i;
  const double n = kDraws * kDim;
  const double var = 1024.0 * 1024.0;
  EXPECT_LT(std::abs(sum / n) / std::sqrt(var / n), 5.0);
  const double var_hat = sum2 / n;
  EXPECT_LT(std::abs(var_hat / var - 1) / std::sqrt(2.0 / n), 5.0);
}

// At dp-admm's own B and σ (B/g ≈ 1.7·10^3 here), vectors of norm
// B(1 + 1e-6) to 3B are brought under the charged bound by the guard, and
// without the guard (bound = +inf) the larger ones exceed it.
TEST(DpAdmmGridNoiseTest, GuardHoldsAtTheStepsScale) {
  const LinearizedAdmmParams p = Params();
  const Real s = p.NoiseStd(0, kSamples);
  const Real bound = p.UpdateBound(0, kSamples);
  const double charged = GridSensitivity(bound, s, kDim);
  const double g = double(s) / 1024;
  static Real v[kDim];
  static int32_t r[kDim];
  for (double factor : {1 + 1e-6, 1.001, 1.5, 3.0}) {
    SCOPED_TRACE(factor);
    double norm2 = 0;
    for (size_t i = 0; i < kDim; ++i) {
      v[i] = Real(13 + 7 * double(i) + 0.5);
      norm2 += double(v[i]) * double(v[i]);
    }
    const double scale = factor * double(bound) / std::sqrt(norm2);
    for (size_t i = 0; i < kDim; ++i) v[i] = Real(double(v[i]) * scale);
    for (Real b : {bound, std::numeric_limits<Real>::infinity()}) {
      ASSERT_TRUE(RoundToGrid(b, s, v, r).ok());
      double r2 = 0;
      for (size_t i = 0; i < kDim; ++i) r2 += double(r[i]) * double(r[i]);
      if (b == bound) {
        EXPECT_LE(std::sqrt(r2) * g, charged);
      } else if (factor > 1.01) {
        EXPECT_GT(std::sqrt(r2) * g, charged);
      }
    }
  }
}

// One trainer step charges RDP(α) = α·S²/(2σ²) with S = 2·(S1/(ρ + 1/η) +
// g·√p/2), g = σ/1024, σ = 2 S1 √(2 ln(1.25/δ))/(m ε (ρ + 1/η)) (paper 004
// Thm 1), η from the smooth schedule: by hand, against the ledger; its ε
// is above the unrounded Δ_dev's, by less than 1%.
TEST(DpAdmmGridNoiseTest, LedgerChargesTheRoundingByHand) {
  testing::SyntheticData<kSamples, kDim> data{7};
  TestEntropy entropy(5);
  TrainerConfig config;
  config.algorithm = AlgorithmKind::kLinearizedAdmm;
  config.loss.kind = LossKind::kLogistic;
  config.job_id = 3;
  config.entropy = &entropy;
  config.epsilon_budget = 1e9;
  config.delta = 1e-5;
  static StaticLocalTrainer<AlgorithmKind::kLinearizedAdmm, LossKind::kLogistic,
                            kSamples, kDim>
      trainer;
  ASSERT_TRUE(trainer.Init(data.View(), config).ok());
  static Real z[kDim], upload[kDim];
  const LinearizedAdmmParams p = Params();
  ASSERT_TRUE(RunLinearizedAdmm(trainer.trainer(), p, 0, z, upload).ok());

  const double m = kSamples;
  const double eta = 1 / (0.25 + 2 * std::sqrt(4 * std::log(1.25e5)) / m);
  const double denom = 1 + 1 / eta;
  const double sigma = 2 * std::sqrt(2 * std::log(1.25e5)) / (m * denom);
  const double sens = 2 * (1 / denom + sigma / 1024 * std::sqrt(8.0) / 2);
  const Span<const double> rdp = trainer.trainer().state().ledger.rdp();
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    const double alpha = DevicePrivacyLedger::kOrders[i];
    const double hand = alpha * sens * sens / (2 * sigma * sigma);
    EXPECT_NEAR(rdp[i], hand, 1e-5 * hand) << alpha;  // float32 σ on MCU
  }
  DevicePrivacyLedger unrounded;
  ASSERT_TRUE(unrounded.Charge(2 / denom, sigma).ok());
  const double eps = trainer.trainer().state().ledger.Epsilon(1e-5).value();
  const double eps_unrounded = unrounded.Epsilon(1e-5).value();
  EXPECT_GT(eps, eps_unrounded);
  EXPECT_LT(eps, eps_unrounded * 1.01);
}

}  // namespace
}  // namespace edgeadmm
