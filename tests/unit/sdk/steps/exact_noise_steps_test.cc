// The steps that add Gaussian noise draw it exactly on the grid
// (grid_gaussian.h), never by Box–Muller: prox-admm (noise in the state or
// on the wire only, the participation share), dp-sgd and dp-admm (its
// release and charge: dp_admm_grid_noise_test.cc). At compile time,
// their Run takes a DiscreteGaussianSampler (a GaussianSampler does not
// convert); at run time, through the LocalTrainer, every uploaded
// coordinate is a multiple of the grid step g = s/2^10, which a Box–Muller
// draw is with probability 0. The trainer's ledger holds the inflated
// sensitivity, checked against the RDP computed by hand. Portable.
#include <cmath>
#include <type_traits>

#include "edgeadmm/device_privacy_ledger.h"
#include "edgeadmm/dp_sgd_step.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/linearized_admm_step.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/prox_admm_step.h"
#include "gtest/gtest.h"
#include "synthetic_data.h"

namespace edgeadmm {
namespace {

static_assert(
    std::is_same_v<decltype(&ProxAdmmStep::Run),
                   Result<ProxAdmmReport> (ProxAdmmStep::*)(
                       const ProxAdmmParams&, Span<const Real>, Span<Real>,
                       DiscreteGaussianSampler&, Span<Real>)>,
    "prox-admm's noise is the exact sampler's");
static_assert(std::is_same_v<decltype(&DpSgdStep::Run),
                             Result<DpSgdReport> (DpSgdStep::*)(
                                 const DpSgdParams&, Span<const Real>,
                                 DiscreteGaussianSampler&, Span<Real>)>,
              "dp-sgd's noise is the exact sampler's");
static_assert(
    std::is_same_v<decltype(&LinearizedAdmmStep::Run),
                   Result<LinearizedAdmmReport> (LinearizedAdmmStep::*)(
                       const LinearizedAdmmParams&, uint32_t, Span<const Real>,
                       Span<const Real>, Span<Real>, DiscreteGaussianSampler&)>,
    "dp-admm's noise is the exact sampler's (dp_admm_grid_noise_test.cc)");
static_assert(
    !std::is_convertible_v<GaussianSampler&, DiscreteGaussianSampler&>,
    "a Box-Muller sampler cannot be passed to those steps");

constexpr size_t kSamples = 16;
constexpr size_t kDim = 8;

template <AlgorithmKind kAlgorithm>
struct Device {
  testing::SyntheticData<kSamples, kDim> data{11};
  DatasetView view = data.View();
  TestEntropy entropy{5};
  TrainerConfig config;
  StaticLocalTrainer<kAlgorithm, LossKind::kLogistic, kSamples, kDim> trainer;
  Real z[kDim] = {0.1, -0.2, 0.3, 0, 0.05, -0.1, 0.2, 0.4};
  Real upload[kDim] = {};

  Device() {
    config.algorithm = kAlgorithm;
    config.loss.kind = LossKind::kLogistic;
    config.job_id = 3;
    config.entropy = &entropy;
    config.epsilon_budget = 1e9;
    config.delta = 1e-5;
    EXPECT_TRUE(trainer.Init(view, config).ok());
  }
  LocalTrainer& t() { return trainer.trainer(); }

  // Every coordinate is s·n/1024 for an integer n (exact: s is a power of
  // two and |n| < 2^24).
  void ExpectOnGrid(double s) const {
    int nonzero = 0;
    for (size_t i = 0; i < kDim; ++i) {
      const double steps = double(upload[i]) / s * 1024;
      EXPECT_EQ(steps, std::round(steps)) << i;
      nonzero += steps != 0;
    }
    EXPECT_GT(nonzero, 0);
  }
};

ProxAdmmParams NoisyProx(bool noise_in_state) {
  ProxAdmmParams p;
  p.lambda = 0.5;
  p.clip = 0.5;
  p.sigma = 1.0;  // s = λσ = 0.5
  p.noise_in_state = noise_in_state;
  return p;
}

TEST(ExactNoiseStepsTest, ProxAdmmUploadsAreOnTheGridInBothNoiseModes) {
  for (bool in_state : {true, false}) {
    SCOPED_TRACE(in_state);
    Device<AlgorithmKind::kProxAdmm> d;
    for (uint64_t round = 0; round < 3; ++round) {
      ASSERT_TRUE(
          RunProxAdmm(d.t(), NoisyProx(in_state), round, d.z, d.upload).ok());
      d.ExpectOnGrid(0.5);
    }
  }
}

TEST(ExactNoiseStepsTest, DpSgdUploadsAreOnTheGrid) {
  Device<AlgorithmKind::kDpSgd> d;
  DpSgdParams p;
  p.clip = 0.5;
  p.sigma = 0.25;
  for (uint64_t round = 0; round < 3; ++round) {
    ASSERT_TRUE(RunDpSgd(d.t(), p, round, d.z, d.upload).ok());
    d.ExpectOnGrid(0.25);
  }
}

// Three prox-admm rounds charge RDP(α) = 3·α·S²/(2s²) with the replace-one
// sensitivity S = 4λC + g·√p = 1 + (0.5/1024)·√8 and s = λσ = 0.5: by hand,
// against the ledger; and the ε is above the unrounded charge's.
TEST(ExactNoiseStepsTest, LedgerChargesTheRoundingByHand) {
  Device<AlgorithmKind::kProxAdmm> d;
  for (uint64_t round = 0; round < 3; ++round) {
    ASSERT_TRUE(
        RunProxAdmm(d.t(), NoisyProx(false), round, d.z, d.upload).ok());
  }
  const double sens = 1 + 0.5 / 1024 * std::sqrt(8.0);
  const Span<const double> rdp = d.t().state().ledger.rdp();
  for (size_t i = 0; i < DevicePrivacyLedger::kOrderCount; ++i) {
    const double alpha = DevicePrivacyLedger::kOrders[i];
    const double hand = 3 * alpha * sens * sens / (2 * 0.25);
    EXPECT_NEAR(rdp[i], hand, 1e-12 * hand) << alpha;
  }
  DevicePrivacyLedger unrounded;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(unrounded.Charge(1.0, 0.5).ok());
  const double eps = d.t().state().ledger.Epsilon(1e-5).value();
  const double eps_unrounded = unrounded.Epsilon(1e-5).value();
  EXPECT_GT(eps, eps_unrounded);
  EXPECT_LT(eps, eps_unrounded * 1.01);  // 0.14% more sensitivity
}

}  // namespace
}  // namespace edgeadmm
