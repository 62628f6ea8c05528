// The SDK allocates nothing: every algorithm's Init, local steps, dual
// updates and state save/load run on a real a9a shard under the malloc/new
// interposer (tests/support/no_heap_check.h), and any allocation fails.
#include <cstdlib>
#include <string>
#include <vector>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/dataio/libsvm_reader.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/share_noise_stream.h"
#include "gtest/gtest.h"
#include "no_heap_check.h"

namespace edgeadmm {
namespace {

constexpr size_t kDim = 123;
constexpr size_t kRecords = 325;

class NoHeapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EDGEADMM_REQUIRE_NO_HEAP_CHECK();
    const char* dir = std::getenv("EDGEADMM_DATA");
    auto loaded = ReadLibsvmFile(
        std::string(dir != nullptr ? dir : "../shared/data") + "/a9a.xz", kDim);
    ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
    data_ = std::move(loaded.value());
    view_ = data_.Shard(0, kRecords).value();
    z_.assign(kDim, 0.01);
    upload_.resize(kDim);
    per_record_.assign(kRecords, 0.01);
    share_.resize(kRecords);
    state_.resize(LocalTrainer::StateBytes(kDim));
  }

  // Runs Init, `rounds` steps of `algorithm` and a save/load inside one
  // NoHeapScope; returns the number of allocations seen.
  size_t Violations(AlgorithmKind algorithm, LossKind loss, int rounds) {
    memory_.assign(
        LocalStepWorkspaceBytes(algorithm, loss, kRecords, kDim) + 64,
        std::byte{0});
    TestEntropy entropy(3);
    TrainerConfig config;
    config.algorithm = algorithm;
    config.loss.kind = loss;
    config.entropy = &entropy;
    config.epsilon_budget = 1e6;
    config.allow_unaccounted_steps = true;
    LocalTrainer trainer;
    const Span<const Real> z(z_.data(), kDim);
    const Span<Real> upload(upload_.data(), kDim);
    NoHeapScope scope;
    EXPECT_TRUE(
        trainer.Init(ByteSpan(memory_.data(), memory_.size()), view_, config)
            .ok());
    for (int round = 0; round < rounds; ++round) {
      bool ok = false;
      switch (algorithm) {
        case AlgorithmKind::kProxAdmm: {
          ProxAdmmParams p;
          p.clip = 1.0;
          p.sigma = 2.0;
          ok = RunProxAdmm(trainer, p, round, z, upload).ok();
          break;
        }
        case AlgorithmKind::kLinearizedAdmm: {
          LinearizedAdmmParams p;
          p.regularizer.kind = RegularizerKind::kL2;
          p.regularizer.l2 = 1;
          ok = RunLinearizedAdmm(trainer, p, round, z, upload).ok() &&
               ApplyLinearizedDual(trainer, p.rho, z).ok();
          break;
        }
        case AlgorithmKind::kPenaltyPerturbation: {
          PenaltyPerturbationParams p;
          p.loss_weight = 10;
          ok = RunPenaltyPerturbation(trainer, p, round, z, upload).ok() &&
               ApplyPenaltyPerturbationDual(trainer, p, z).ok();
          break;
        }
        case AlgorithmKind::kDpSgd: {
          DpSgdParams p;
          p.sigma = 1.0;
          ok = RunDpSgd(trainer, p, round, z, upload).ok();
          break;
        }
        case AlgorithmKind::kAdmmSharing: {
          // N-vectors: u and y in, the share out (rigorous noise, charged).
          SharingTaskParams p;
          p.rho = 1;
          p.lambda = 0.1;
          p.noise.mode = SharingNoise::kRigorous;
          p.noise.sigma = 1;
          p.sensitivity = 0.5;
          const Span<const Real> v(per_record_.data(), kRecords);
          ok = RunAdmmSharing(trainer, p, round, v, v,
                              Span<Real>(share_.data(), kRecords))
                   .ok();
          break;
        }
        default:  // an aggregator-only job kind
          break;
      }
      EXPECT_TRUE(ok) << "round " << round;
    }
    auto saved = trainer.SaveState(ByteSpan(state_.data(), state_.size()));
    EXPECT_TRUE(saved.ok());
    EXPECT_TRUE(
        trainer.LoadState(ConstByteSpan(state_.data(), saved.size())).ok());
    return scope.End();
  }

  DenseDataset data_;
  DatasetView view_;
  std::vector<Real> z_, upload_, per_record_, share_;
  std::vector<std::byte> memory_, state_;
};

TEST_F(NoHeapTest, EveryAlgorithmRunsWithoutTheHeap) {
  const struct {
    AlgorithmKind algorithm;
    LossKind loss;
  } cases[] = {
      {AlgorithmKind::kProxAdmm, LossKind::kLogistic},
      {AlgorithmKind::kProxAdmm, LossKind::kSquared},
      {AlgorithmKind::kProxAdmm, LossKind::kSmoothedHinge},
      {AlgorithmKind::kLinearizedAdmm, LossKind::kLogistic},
      {AlgorithmKind::kPenaltyPerturbation, LossKind::kLogistic},
      {AlgorithmKind::kDpSgd, LossKind::kLogistic},
      {AlgorithmKind::kAdmmSharing, LossKind::kLogistic},
  };
  for (const auto& c : cases) {
    const size_t violations = Violations(c.algorithm, c.loss, 3);
    EXPECT_EQ(violations, 0u)
        << "algorithm " << static_cast<int>(c.algorithm) << " loss "
        << static_cast<int>(c.loss) << ": " << LastHeapViolation();
  }
}

// The streaming ADMM-sharing party (issue 15): rounds in 64-row blocks and
// the rigorous share with keyed noise (ShareNoiseStream), all in the
// StreamingBytes(p, B) buffer, without the heap.
TEST_F(NoHeapTest, StreamingSharingStepRunsWithoutTheHeap) {
  constexpr size_t kBlock = 64;
  memory_.assign(AdmmSharingStep::StreamingBytes(kDim, kBlock), std::byte{0});
  TestEntropy entropy(5);
  Drbg drbg;
  ASSERT_TRUE(drbg.Init(entropy, ConstByteSpan()).ok());
  SharingNoiseParams noise;
  noise.mode = SharingNoise::kRigorous;
  noise.sigma = 1;
  std::byte key[ShareNoiseStream::kKeyBytes];
  bool ok = true;
  size_t violations;
  {
    NoHeapScope scope;
    DiscreteGaussianSampler sampler(drbg);
    Workspace ws(ByteSpan(memory_.data(), memory_.size()));
    AdmmSharingStep step;
    ok = ok &&
         step.Init(ws, Span<const Real>(view_.Row(0).data(), kRecords * kDim),
                   kRecords, kDim, 0.1, 1)
             .ok();
    auto y = ws.Allocate<Real>(kBlock);
    auto v = ws.Allocate<Real>(kBlock);
    ok = ok && y.ok() && v.ok();
    for (int round = 0; ok && round < 2; ++round) {
      ok = step.BeginRound().ok();
      for (size_t first = 0; ok && first < kRecords; first += kBlock) {
        const size_t b = kBlock < kRecords - first ? kBlock : kRecords - first;
        for (size_t j = 0; j < b; ++j) {
          y.value()[j] = -0.5 * view_.Label(first + j);
          v.value()[j] = 0.01;
        }
        ok = step.AccumulateBlock(first, y.value().first(b), v.value().first(b),
                                  Span<const Real>())
                 .ok();
      }
      ok = ok && step.Solve(noise, sampler).ok();
    }
    ok = ok && ShareNoiseStream::NewKey(drbg, ByteSpan(key, sizeof(key))).ok();
    for (size_t first = 0; ok && first < kRecords; first += kBlock) {
      const size_t b = kBlock < kRecords - first ? kBlock : kRecords - first;
      ok = step.ShareBlock(first, noise, ConstByteSpan(key, sizeof(key)),
                           y.value().first(b))
               .ok();
    }
    violations = scope.End();
  }
  EXPECT_TRUE(ok);
  EXPECT_EQ(violations, 0u) << LastHeapViolation();
}

}  // namespace
}  // namespace edgeadmm
