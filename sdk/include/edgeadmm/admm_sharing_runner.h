// The runner of papers 000/003's party x_m-update (job "admm-sharing";
// AdmmSharingStep) on a LocalTrainer: its workspace, its Init, the
// whole-vector step RunAdmmSharing and the streamed one
// (Begin/Accumulate/FinishSharingStream).
#pragma once

#include <cstddef>
#include <cstdint>

#include "edgeadmm/admm_sharing_step.h"
#include "edgeadmm/local_trainer.h"

namespace edgeadmm {

// The runner's object in the trainer's workspace: the step, the step's own
// workspace (its Init needs the task's ρ, λ) and the charge a step makes at
// its commit.
struct AdmmSharingRunnerState {
  AdmmSharingStep step;
  ByteSpan workspace;
  // One Gaussian (accounted, Δ, σ) of the round.
  bool accounted = false;
  double sensitivity = 0;  // privacy math in double (real.h)
  double noise_std = 0;
  uint64_t round = 0;
  bool pending = false;  // a streamed step is accumulating
};

constexpr size_t AdmmSharingStepBytes(LossKind /*loss*/, size_t /*samples*/,
                                      size_t dim) {
  return StepObjectBytes<AdmmSharingRunnerState>() +
         Workspace::Bytes<std::byte>(AdmmSharingStep::WorkspaceBytes(dim));
}
Status InitAdmmSharingStep(Workspace& ws, const DatasetView& data,
                           const Loss& loss, void** step);

inline constexpr LocalStepRunner kAdmmSharingRunner{
    AlgorithmKind::kAdmmSharing, AdmmSharingStepBytes, InitAdmmSharingStep,
    /*streams=*/true};

// Papers 000/003 party x_m-update: from u = Σ_{k≠m} s_k − z and y (N =
// samples entries each, as sent), solves eq. (6)/(16) for x̃_m (persisted in
// the state), writes the share D_m x̃_m (plus N(0, σ²) per entry in
// rigorous mode) to `upload` (N entries). Rigorous mode first scales x̃_m so
// that ||D_m x̃_m||₂ ≤ Δ/2 (the step's ClipModel) and is charged to the
// ledger as a Gaussian of σ with sensitivity Δ = `sensitivity`, which then
// holds under any change of the party's data (gaussian scores likewise:
// ||D_test,m x̃_m||₂ ≤ Δ_s/2); none and paper modes are not Gaussian-ledger
// steps (allow_unaccounted_steps). Errors as the step's, the ledger's and
// LocalTrainer::BeginStep's.
Result<SharingSolveReport> RunAdmmSharing(LocalTrainer& trainer,
                                          const SharingTaskParams& params,
                                          uint64_t round, Span<const Real> u,
                                          Span<const Real> y,
                                          Span<Real> upload);
// The job's last iteration with a scoring phase: the same step, then the
// partial scores D_test,m x̃_m(T) of `test_rows` (K x dim, row-major: the
// party's column block of the job's K test records) follow the share in
// `upload` (N + K entries; kGaussian adds N(0, σ_s²) per score). One
// ledger charge covers both releases when both are Gaussian (RDP adds:
// the ratio √((Δ/σ)² + (Δ_s/σ_s)²)); an exact score (or a share without
// rigorous noise) is an unaccounted release (allow_unaccounted_steps).
Result<SharingSolveReport> RunAdmmSharing(
    LocalTrainer& trainer, const SharingTaskParams& params,
    const SharingScoreParams& score, uint64_t round, Span<const Real> u,
    Span<const Real> y, Span<const Real> test_rows, Span<Real> upload);

// The same step for a party that streams its task and its share and never
// holds an N-vector (DeviceClient with stream_rows; docs/sdk.md,
// "Streaming party"). A streamed task carries its params after its
// vectors, so: BeginSharingStream(round) checks the round and binds the
// data; AccumulateSharingStream adds a block of rows of u (kModel) or y
// (kAuxiliary) in the order the task carries them (`zeros`: at least as
// many zeros as the block: the own share the gateway already removed from
// u); FinishSharingStream(params, score, round, test_rows, key) makes
// RunAdmmSharing's checks (noise params, budget, unaccounted releases;
// `score` null without a scoring phase, `test_rows` its test records),
// factors K, solves, clips x̃ as the whole-vector step does, draws the
// round's share-noise key (ShareNoiseStream::kKeyBytes) from the DRBG
// into `noise_key`, then charges the ledger and sets x̃_m in the state
// like RunAdmmSharing. The caller then produces the share rows
// g·(r_i + k_i(key)) on the grid of σ (and keyed partial scores) as they
// are sent (ClipModel has checked the integers r_i), and
// persists the state with the key before the first one leaves.
// FAILED_PRECONDITION for Accumulate/Finish without a Begin of that round
// (a Finish ends the stream, even when it fails); errors otherwise as
// RunAdmmSharing's and the step's.
Status BeginSharingStream(LocalTrainer& trainer, uint64_t round);
Status AccumulateSharingStream(LocalTrainer& trainer,
                               AdmmSharingStep::Vector which, size_t first_row,
                               Span<const Real> values, Span<const Real> zeros);
Result<SharingSolveReport> FinishSharingStream(LocalTrainer& trainer,
                                               const SharingTaskParams& params,
                                               const SharingScoreParams* score,
                                               uint64_t round,
                                               Span<const Real> test_rows,
                                               ByteSpan noise_key);

}  // namespace edgeadmm
