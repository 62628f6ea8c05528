// Benchmark firmware (not a timed test): instructions per local step and per
// round's device compute of every step kind the MCU runs, on the MPS2-AN386
// board under QEMU `-icount shift=0` (the method of step_benchmark.cc:
// one timer tick = 40 instructions; step_kinds_table.py runs it, checks the
// calibration and prints float32 beside double).
//
// Data: the reference job's shard (logistic, 256 a9a records, p = 123, in
// flash) for prox-admm, dp-admm (linearized), dp-sgd and pp-admm; the
// sharing example's party (the first 66 columns of 1,000 a9a records, in
// flash, blocks of 64 rows) for the admm-sharing streaming step.
//
// Per kind, five rounds against a fixed global model:
//   step  = the step class's Run (ProxAdmmStep, LinearizedAdmmStep,
//           DpSgdStep, PenaltyPerturbationStep), or the streaming sharing
//           step's round (BeginRound, 16 AccumulateBlock, Solve);
//   round = what the device computes for a round: LocalTrainer's Run* (the
//           step, the budget check and the ledger charge), the dual update
//           (dp-admm, pp-admm), the ε query and the nanopb encoding of the
//           upload; for admm-sharing the step and the keyed share of the
//           1,000 records (the upload's values). The sharing step's
//           Cholesky factor is counted once (sharing_factor: once per job).
// Messages (CoAP, DTLS) are not counted here (step_benchmark.cc does).
//
// UNSAFE AS A TEMPLATE FOR PRODUCTION: the DRBGs are seeded from
// TestEntropy (a public function of a fixed seed).
#include <cstddef>
#include <cstdint>

#include "a9a_sharing_block.h"
#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/baremetal/format.h"
#include "edgeadmm/board/board.h"
#include "edgeadmm/discrete_gaussian_sampler.h"
#include "edgeadmm/drbg.h"
#include "edgeadmm/fake/test_entropy.h"
#include "edgeadmm/gaussian_sampler.h"
#include "edgeadmm/local_steps.h"
#include "edgeadmm/share_noise_stream.h"
#include "edgeadmm/wire/update.h"
#include "edgeadmm/workspace.h"
#include "instruction_timer.h"
#include "reference_job.h"

namespace edgeadmm {
namespace {

using instruction_timer::Instructions;
using instruction_timer::Ticks;
using reference_job::kDelta;
using reference_job::kDim;
using reference_job::kSamples;
using reference_job::kSeed;
constexpr int kRounds = 5;
constexpr LossKind kLogistic = LossKind::kLogistic;

void PrintCount(const char* kind, const char* part, uint64_t value) {
  char line[96];
  baremetal::Format(line, sizeof(line), "%s_%s %llu\n", kind, part,
                    static_cast<unsigned long long>(value));
  board::ConsoleWrite(line);
}

// The largest step and trainer workspaces of the four kinds on the shard.
constexpr size_t Max(size_t a, size_t b) { return a > b ? a : b; }
constexpr size_t kStepBytes =
    Max(Max(ProxAdmmStep::WorkspaceBytes(kLogistic, kSamples, kDim),
            PenaltyPerturbationStep::WorkspaceBytes(kLogistic, kSamples, kDim)),
        Max(LinearizedAdmmStep::WorkspaceBytes(kSamples, kDim),
            DpSgdStep::WorkspaceBytes(kSamples, kDim))) +
    2 * Workspace::Bytes<Real>(kDim);
constexpr size_t kTrainerBytes =
    Max(Max(LocalStepWorkspaceBytes(AlgorithmKind::kProxAdmm, kLogistic,
                                    kSamples, kDim),
            LocalStepWorkspaceBytes(AlgorithmKind::kPenaltyPerturbation,
                                    kLogistic, kSamples, kDim)),
        Max(LocalStepWorkspaceBytes(AlgorithmKind::kLinearizedAdmm, kLogistic,
                                    kSamples, kDim),
            LocalStepWorkspaceBytes(AlgorithmKind::kDpSgd, kLogistic, kSamples,
                                    kDim)));
alignas(Workspace::kAlignment) std::byte step_memory[kStepBytes];
alignas(Workspace::kAlignment) std::byte trainer_memory[kTrainerBytes];
Real z[kDim];
Real upload[kDim];
std::byte encoded[128 + 4 * kDim];

ConstByteSpan Personalization() { return reference_job::Personalization(); }

constexpr size_t Min(size_t a, size_t b) { return a < b ? a : b; }

// The calibration loop (instruction_timer.h): step_kinds_table.py fails
// unless the two counts agree.
void Calibrate() {
  const uint64_t measured = instruction_timer::MeasureCalibrationLoop();
  PrintCount("calibration", "executed",
             instruction_timer::kCalibrationInstructions);
  PrintCount("calibration", "measured", measured);
}

// Five rounds of one kind: `step(k)` and `round(k)` return a Status; the
// means are printed (round: `round`'s count, plus the step's when
// `round_adds_step`, i.e. when `round` does not run the step itself).
template <typename StepFn, typename RoundFn>
Status Measure(const char* kind, StepFn step, RoundFn round,
               bool round_adds_step = false) {
  uint64_t sum_step = 0;
  uint64_t sum_round = 0;
  for (int k = 0; k < kRounds; ++k) {
    const uint32_t t0 = Ticks();
    EDGEADMM_TRY(step(k));
    const uint32_t t1 = Ticks();
    EDGEADMM_TRY(round(k));
    const uint32_t t2 = Ticks();
    sum_step += Instructions(t0, t1);
    sum_round +=
        Instructions(t1, t2) + (round_adds_step ? Instructions(t0, t1) : 0);
  }
  PrintCount(kind, "mean_step", sum_step / kRounds);
  PrintCount(kind, "mean_round", sum_round / kRounds);
  return Status::Ok();
}

// The ε query and the upload's encoding that end a trainer's round.
Status EncodeRound(const LocalTrainer& trainer, int k) {
  EDGEADMM_TRY_ASSIGN(const double epsilon, trainer.LocalEpsilon());
  const edgeadmm_wire_Update header = reference_job::UploadHeader(
      static_cast<uint64_t>(k), trainer.state().ledger, epsilon);
  return wire::EncodeUpdate(header, Span<const Real>(upload, kDim),
                            ByteSpan(encoded, sizeof(encoded)))
      .status();
}

Result<LocalTrainer*> StartTrainer(LocalTrainer& trainer, AlgorithmKind kind,
                                   TestEntropy& entropy) {
  TrainerConfig config;
  config.algorithm = kind;
  config.entropy = &entropy;
  config.personalization = Personalization();
  config.epsilon_budget = 1e6;
  config.delta = kDelta;
  EDGEADMM_TRY_ASSIGN(const DatasetView data, reference_job::Shard());
  EDGEADMM_TRY(trainer.Init(ByteSpan(trainer_memory, sizeof(trainer_memory)),
                            data, config));
  return &trainer;
}

[[gnu::noinline]] Status RunShardKinds() {
  EDGEADMM_TRY_ASSIGN(const DatasetView data, reference_job::Shard());
  const Loss loss;  // logistic
  const Span<const Real> zs(z, kDim);
  const Span<Real> up(upload, kDim);
  reference_job::FillGlobalModel(z);
  TestEntropy step_entropy(kSeed);
  Drbg drbg;
  EDGEADMM_TRY(drbg.Init(step_entropy, Personalization()));
  // prox-admm, dp-admm (linearized), dp-sgd and pp-admm (its release)
  // draw exact grid noise; pp-admm's Gamma perturbation does not.
  DiscreteGaussianSampler exact_noise(drbg);
  GaussianSampler noise(drbg);

  {  // prox-admm: the reference job's parameters (noise in the state)
    const ProxAdmmParams p = reference_job::Params();
    Workspace ws(ByteSpan(step_memory, sizeof(step_memory)));
    ProxAdmmStep step;
    EDGEADMM_TRY(step.InitFor<kLogistic>(ws, data, loss));
    EDGEADMM_TRY_ASSIGN(const Span<Real> u, ws.Allocate<Real>(kDim));
    for (size_t j = 0; j < kDim; ++j) u[j] = 0;
    TestEntropy entropy(kSeed);
    LocalTrainer t;
    EDGEADMM_TRY(StartTrainer(t, AlgorithmKind::kProxAdmm, entropy).status());
    if (const Status s = Measure(
            "prox_admm",
            [&](int) { return step.Run(p, zs, u, exact_noise, up).status(); },
            [&](int k) {
              EDGEADMM_TRY(RunProxAdmm(t, p, k, zs, up).status());
              return EncodeRound(t, k);
            });
        !s.ok())
      return s;
  }
  {  // dp-admm (linearized, smooth schedule, L2 1e-3)
    LinearizedAdmmParams p;
    p.regularizer.kind = RegularizerKind::kL2;
    p.regularizer.l2 = ToReal(1e-3);
    p.reg_weight = 1;
    Workspace ws(ByteSpan(step_memory, sizeof(step_memory)));
    LinearizedAdmmStep step;
    EDGEADMM_TRY(step.Init(ws, data, loss));
    EDGEADMM_TRY_ASSIGN(const Span<Real> gamma, ws.Allocate<Real>(kDim));
    EDGEADMM_TRY_ASSIGN(const Span<Real> w, ws.Allocate<Real>(kDim));
    for (size_t j = 0; j < kDim; ++j) gamma[j] = w[j] = 0;
    TestEntropy entropy(kSeed);
    LocalTrainer t;
    EDGEADMM_TRY(
        StartTrainer(t, AlgorithmKind::kLinearizedAdmm, entropy).status());
    if (const Status s = Measure(
            "dp_admm",
            [&](int k) {
              return step
                  .Run(p, static_cast<uint32_t>(k), zs, gamma, w, exact_noise)
                  .status();
            },
            [&](int k) {
              if (k > 0) EDGEADMM_TRY(ApplyLinearizedDual(t, p.rho, zs));
              EDGEADMM_TRY(RunLinearizedAdmm(t, p, k, zs, up).status());
              return EncodeRound(t, k);
            });
        !s.ok())
      return s;
  }
  {  // dp-sgd: examples/jobs/dp-sgd.toml's 5 gradient steps of 0.5, C = 1
    DpSgdParams p;
    p.learning_rate = ToReal(0.5);
    p.local_steps = 5;
    p.clip = 1;
    p.sigma = 4;
    Workspace ws(ByteSpan(step_memory, sizeof(step_memory)));
    DpSgdStep step;
    EDGEADMM_TRY(step.Init(ws, data, loss));
    TestEntropy entropy(kSeed);
    LocalTrainer t;
    EDGEADMM_TRY(StartTrainer(t, AlgorithmKind::kDpSgd, entropy).status());
    if (const Status s = Measure(
            "dp_sgd",
            [&](int) { return step.Run(p, zs, exact_noise, up).status(); },
            [&](int k) {
              EDGEADMM_TRY(RunDpSgd(t, p, k, zs, up).status());
              return EncodeRound(t, k);
            });
        !s.ok())
      return s;
  }
  {  // pp-admm (penalty perturbation, one neighbour, C = 10)
    PenaltyPerturbationParams p;
    p.loss_weight = 10;
    // The shard's a9a rows have norms up to √14, outside pp-admm's privacy
    // domain ‖a‖ ≤ 1 (docs/privacy.md, "pp-admm"); the step's gradient plan,
    // whose floor grows with ‖a‖², needs γ ≈ 2e-4 in float32 for them. This
    // measures cycles, not privacy: γ = 1e-3 leaves the plan room.
    p.output_radius = 1e-3;
    Workspace ws(ByteSpan(step_memory, sizeof(step_memory)));
    PenaltyPerturbationStep step;
    EDGEADMM_TRY(step.InitFor<kLogistic>(ws, data, loss));
    EDGEADMM_TRY_ASSIGN(const Span<Real> dual, ws.Allocate<Real>(kDim));
    EDGEADMM_TRY_ASSIGN(const Span<Real> f, ws.Allocate<Real>(kDim));
    for (size_t j = 0; j < kDim; ++j) dual[j] = f[j] = 0;
    TestEntropy entropy(kSeed);
    LocalTrainer t;
    EDGEADMM_TRY(
        StartTrainer(t, AlgorithmKind::kPenaltyPerturbation, entropy).status());
    if (const Status s = Measure(
            "pp_admm",
            [&](int k) {
              return step
                  .Run(p, static_cast<uint32_t>(k), zs, dual, f, noise,
                       exact_noise)
                  .status();
            },
            [&](int k) {
              EDGEADMM_TRY(RunPenaltyPerturbation(t, p, k, zs, up).status());
              EDGEADMM_TRY(ApplyPenaltyPerturbationDual(t, p, zs));
              return EncodeRound(t, k);
            });
        !s.ok())
      return s;
  }
  return Status::Ok();
}

// The admm-sharing streaming party of examples/cortex_m4_sharing: rigorous
// share noise (σ = 0.5, keyed), λ = 0.1, ρ = 1, blocks of 64 rows.
constexpr size_t kPartyRows = sharing_block::kShardSamples;
constexpr size_t kPartyDim = sharing_block::kShardDim;
constexpr size_t kBlock = 64;
alignas(Workspace::kAlignment) std::byte
    sharing_memory[AdmmSharingStep::StreamingBytes(kPartyDim, kBlock)];

[[gnu::noinline]] Status RunSharing() {
  Workspace ws(ByteSpan(sharing_memory, sizeof(sharing_memory)));
  AdmmSharingStep step;
  const uint32_t t0 = Ticks();
  EDGEADMM_TRY(step.Init(
      ws,
      Span<const Real>(sharing_block::kShardFeatures, kPartyRows * kPartyDim),
      kPartyRows, kPartyDim, ToReal(0.1), 1));
  PrintCount("sharing", "factor", Instructions(t0, Ticks()));
  EDGEADMM_TRY_ASSIGN(const Span<Real> y, ws.Allocate<Real>(kBlock));
  EDGEADMM_TRY_ASSIGN(const Span<Real> v, ws.Allocate<Real>(kBlock));
  TestEntropy entropy(kSeed);
  Drbg drbg;
  EDGEADMM_TRY(drbg.Init(entropy, Personalization()));
  DiscreteGaussianSampler sampler(drbg);
  SharingNoiseParams noise;
  noise.mode = SharingNoise::kRigorous;
  noise.sigma = ToReal(0.5);
  std::byte key[ShareNoiseStream::kKeyBytes];
  return Measure(
      "admm_sharing",
      [&](int k) {
        EDGEADMM_TRY(step.BeginRound());
        for (size_t first = 0; first < kPartyRows; first += kBlock) {
          const size_t b = Min(kBlock, kPartyRows - first);
          for (size_t j = 0; j < b; ++j) {
            const double label = sharing_block::kShardLabels[first + j];
            y[j] = ToReal(-0.5 * label + 0.01 * k);
            v[j] = ToReal(0.002 * static_cast<double>((first + j) % 13));
          }
          EDGEADMM_TRY(step.AccumulateBlock(first, y.first(b), v.first(b),
                                            Span<const Real>()));
        }
        return step.Solve(noise, sampler).status();
      },
      [&](int) {
        EDGEADMM_TRY(
            ShareNoiseStream::NewKey(drbg, ByteSpan(key, sizeof(key))));
        for (size_t first = 0; first < kPartyRows; first += kBlock) {
          const size_t b = Min(kBlock, kPartyRows - first);
          EDGEADMM_TRY(step.ShareBlock(
              first, noise, ConstByteSpan(key, sizeof(key)), y.first(b)));
        }
        return Status::Ok();
      },
      /*round_adds_step=*/true);
}

}  // namespace
}  // namespace edgeadmm

int main() {
  edgeadmm::instruction_timer::Start();
  edgeadmm::Calibrate();
  edgeadmm::Status status = edgeadmm::RunShardKinds();
  if (status.ok()) status = edgeadmm::RunSharing();
  if (!status.ok()) {
    edgeadmm::board::ConsoleWrite("error ");
    edgeadmm::board::ConsoleWrite(status.str());
    edgeadmm::board::ConsoleWrite("\n");
    return 1;
  }
  edgeadmm::board::ConsoleWrite("done\n");
  return 0;
}
